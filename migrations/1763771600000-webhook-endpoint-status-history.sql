-- The status each webhook endpoint had since when, so that the relay judges an event against the
-- endpoint as it was when the event happened (spec 3: events occurring while an endpoint is
-- paused are not queued for it; pausing does not cancel what was queued before), however late a
-- worker relays it. A trigger keeps it, whatever changes the status.

CREATE TABLE webhook_endpoint_status_changes (
  tenant_id    uuid NOT NULL,
  endpoint_id  uuid NOT NULL,
  changed_at   timestamptz NOT NULL,
  status       text NOT NULL,
  PRIMARY KEY (endpoint_id, changed_at),
  FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, id) ON DELETE CASCADE
);

INSERT INTO webhook_endpoint_status_changes (tenant_id, endpoint_id, changed_at, status)
SELECT tenant_id, id, status_changed_at, status FROM webhook_endpoints;

-- A change is recorded at the endpoint's status_changed_at, which every transition sets; one
-- that changed the status without it is recorded at the current time, never over an earlier row.
CREATE FUNCTION record_webhook_endpoint_status() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  at timestamptz := NEW.status_changed_at;
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status_changed_at IS NOT DISTINCT FROM NEW.status_changed_at THEN
    at := clock_timestamp();
  END IF;
  INSERT INTO webhook_endpoint_status_changes (tenant_id, endpoint_id, changed_at, status)
  VALUES (NEW.tenant_id, NEW.id, at, NEW.status)
  ON CONFLICT (endpoint_id, changed_at) DO UPDATE SET status = EXCLUDED.status;
  RETURN NULL;
END $$;

CREATE TRIGGER webhook_endpoints_status_created AFTER INSERT ON webhook_endpoints
  FOR EACH ROW EXECUTE FUNCTION record_webhook_endpoint_status();
CREATE TRIGGER webhook_endpoints_status_changed AFTER UPDATE OF status, status_changed_at ON webhook_endpoints
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.status_changed_at IS DISTINCT FROM NEW.status_changed_at)
  EXECUTE FUNCTION record_webhook_endpoint_status();

-- The relay's candidates besides the active endpoints: those whose status changed since the
-- oldest event of its batch, a range of this index however many endpoints were ever deleted.
CREATE INDEX webhook_endpoints_inactive_changed_idx ON webhook_endpoints (status_changed_at) WHERE status <> 'active';

-- migrate:down

DROP INDEX webhook_endpoints_inactive_changed_idx;
DROP TRIGGER webhook_endpoints_status_changed ON webhook_endpoints;
DROP TRIGGER webhook_endpoints_status_created ON webhook_endpoints;
DROP FUNCTION record_webhook_endpoint_status();
DROP TABLE webhook_endpoint_status_changes;
