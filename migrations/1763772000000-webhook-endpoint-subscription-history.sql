-- The event types each webhook endpoint subscribed to before each change of them, so that the
-- relay judges an event against the subscription the endpoint had when the event happened, as it
-- judges its status (1763771600000): a relay running behind (no worker, a backlog) would
-- otherwise drop the events of types the endpoint has since stopped receiving, and deliver
-- those of types it subscribed to only after they happened. A trigger keeps it, whatever
-- changes the event types.

ALTER TABLE webhook_endpoints ADD COLUMN event_types_changed_at timestamptz;

CREATE TABLE webhook_endpoint_subscription_changes (
  tenant_id             uuid NOT NULL,
  endpoint_id           uuid NOT NULL,
  changed_at            timestamptz NOT NULL,
  previous_event_types  text[] NOT NULL,
  PRIMARY KEY (endpoint_id, changed_at),
  FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, id) ON DELETE CASCADE
);

-- Before the row is written: the change's time goes on the row, for the relay's cheap test of
-- whether an event predates it, and the types it replaces into the history. Two changes within
-- one microsecond keep the types before the first.
CREATE FUNCTION record_webhook_endpoint_subscription() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.event_types_changed_at := clock_timestamp();
  INSERT INTO webhook_endpoint_subscription_changes (tenant_id, endpoint_id, changed_at, previous_event_types)
  VALUES (OLD.tenant_id, OLD.id, NEW.event_types_changed_at, OLD.event_types)
  ON CONFLICT (endpoint_id, changed_at) DO NOTHING;
  RETURN NEW;
END $$;

CREATE TRIGGER webhook_endpoints_subscription_changed BEFORE UPDATE OF event_types ON webhook_endpoints
  FOR EACH ROW WHEN (OLD.event_types IS DISTINCT FROM NEW.event_types)
  EXECUTE FUNCTION record_webhook_endpoint_subscription();

-- migrate:down

DROP TRIGGER webhook_endpoints_subscription_changed ON webhook_endpoints;
DROP FUNCTION record_webhook_endpoint_subscription();
DROP TABLE webhook_endpoint_subscription_changes;
ALTER TABLE webhook_endpoints DROP COLUMN event_types_changed_at;
