-- Webhook deliveries (spec sections 2, 3, 6): one row per event and entitled endpoint, plus one
-- per replay, updated with each attempt; and one row per attempt actually made.
--
-- PostgreSQL is the record of truth; the BullMQ job of a delivery (job id = delivery id) only
-- wakes a worker. A worker takes a delivery for one attempt by setting a lease
-- (leased_until, lease_token), so no attempt is ever sent twice at the same time, whatever the
-- queue does after a crash or a Redis flush.

-- Lets deliveries reference an event of their own company only.
ALTER TABLE events ADD CONSTRAINT events_tenant_id_key UNIQUE (tenant_id, id);

-- Wakes the relay at commit of every transaction that wrote events (NOTIFY is sent on commit
-- and folded to one per transaction and channel).
CREATE FUNCTION notify_events_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('events_inserted', '');
  RETURN NULL;
END;
$$;
CREATE TRIGGER events_inserted_notify AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION notify_events_inserted();

CREATE TABLE webhook_deliveries (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id             uuid NOT NULL REFERENCES tenants (id),
  endpoint_id           uuid NOT NULL,
  event_id              uuid NOT NULL,
  event_type            text NOT NULL,
  -- The envelope version the body is rendered in: the endpoint's pinned_version at fan-out, or
  -- the current version. A replay copies it, so it repeats the same body.
  api_version           text NOT NULL,
  personal_data         boolean NOT NULL,
  replayed_from         uuid,
  status                text NOT NULL DEFAULT 'pending'
                          CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'delivered', 'failed', 'dead')),
  attempt               integer NOT NULL DEFAULT 0 CONSTRAINT webhook_deliveries_attempt_range CHECK (attempt BETWEEN 0 AND 8),
  next_attempt_at       timestamptz,
  error_class           text
                          CONSTRAINT webhook_deliveries_error_class_check CHECK (error_class IN (
                            'gone', 'endpoint_disabled', 'ssrf_rejected', 'api_key_inactive',
                            'api_key_scope_insufficient', 'pii_capability_blocked')),
  last_response_status  integer,
  leased_until          timestamptz,
  lease_token           uuid,
  created_at            timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at            timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT webhook_deliveries_tenant_id_key UNIQUE (tenant_id, id),
  CONSTRAINT webhook_deliveries_endpoint_fkey FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, id),
  CONSTRAINT webhook_deliveries_event_fkey FOREIGN KEY (tenant_id, event_id) REFERENCES events (tenant_id, id),
  CONSTRAINT webhook_deliveries_replayed_from_fkey FOREIGN KEY (tenant_id, replayed_from) REFERENCES webhook_deliveries (tenant_id, id),
  -- Only a pending delivery waits for an attempt; only a failed one has a reason.
  CONSTRAINT webhook_deliveries_next_attempt_pending CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
  CONSTRAINT webhook_deliveries_error_class_failed CHECK ((status = 'failed') = (error_class IS NOT NULL))
)
-- Room on each page for the lease: it changes only unindexed columns (leased_until,
-- lease_token), so PostgreSQL can write it as a heap-only update without touching the table's
-- indexes, but only if the page has space. Full pages (fillfactor 100) made 60 % of the leases
-- in a burst rewrite every index; at 70, a third.
WITH (fillfactor = 70);
-- Fan-out is idempotent: one original delivery per event and endpoint.
CREATE UNIQUE INDEX webhook_deliveries_event_endpoint_key ON webhook_deliveries (event_id, endpoint_id) WHERE replayed_from IS NULL;
-- The deliveries list of an endpoint, newest first.
CREATE INDEX webhook_deliveries_endpoint_created_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
-- The sweep: pending deliveries by due time.
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_replayed_from_idx ON webhook_deliveries (replayed_from) WHERE replayed_from IS NOT NULL;
-- No index on tenant_id alone: the unique (tenant_id, id) serves lookups by company, and with a
-- second candidate the attempts' foreign-key check (a plan cached per connection, made while the
-- table was young) scanned all of a company's deliveries per recorded attempt.

CREATE TABLE webhook_delivery_attempts (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenants (id),
  delivery_id      uuid NOT NULL,
  -- Copied from the delivery so the auto-disable rules read an endpoint's recent attempts from one index.
  endpoint_id      uuid NOT NULL,
  attempt          integer NOT NULL CONSTRAINT webhook_delivery_attempts_attempt_range CHECK (attempt BETWEEN 1 AND 8),
  started_at       timestamptz NOT NULL,
  duration_ms      integer NOT NULL CONSTRAINT webhook_delivery_attempts_duration_positive CHECK (duration_ms >= 0),
  response_status  integer,
  error_kind       text
                     CONSTRAINT webhook_delivery_attempts_error_kind_check CHECK (error_kind IN ('timeout', 'dns', 'connect', 'tls', 'ssrf', 'protocol')),
  -- The first 20 kB of the answer's body, decoded as UTF-8.
  response_body    text CONSTRAINT webhook_delivery_attempts_body_length CHECK (octet_length(response_body) <= 20480 * 3),
  created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT webhook_delivery_attempts_delivery_fkey FOREIGN KEY (tenant_id, delivery_id) REFERENCES webhook_deliveries (tenant_id, id) ON DELETE CASCADE,
  CONSTRAINT webhook_delivery_attempts_endpoint_fkey FOREIGN KEY (tenant_id, endpoint_id) REFERENCES webhook_endpoints (tenant_id, id),
  CONSTRAINT webhook_delivery_attempts_delivery_attempt_key UNIQUE (delivery_id, attempt),
  -- An attempt got an answer or failed for a known reason.
  CONSTRAINT webhook_delivery_attempts_outcome CHECK ((response_status IS NULL) <> (error_kind IS NULL))
);
CREATE INDEX webhook_delivery_attempts_endpoint_started_idx ON webhook_delivery_attempts (endpoint_id, started_at DESC);
-- Auto-disable looks up an endpoint's last success after each failure: one probe here, instead of
-- a walk back over every failure since.
CREATE INDEX webhook_delivery_attempts_endpoint_success_idx ON webhook_delivery_attempts (endpoint_id, started_at DESC)
  WHERE response_status BETWEEN 200 AND 299;
CREATE INDEX webhook_delivery_attempts_tenant_idx ON webhook_delivery_attempts (tenant_id);

-- migrate:down

DROP TABLE webhook_delivery_attempts;
DROP TABLE webhook_deliveries;
DROP TRIGGER events_inserted_notify ON events;
DROP FUNCTION notify_events_inserted();
ALTER TABLE events DROP CONSTRAINT events_tenant_id_key;
