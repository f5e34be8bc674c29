-- The events feed (GET /v1/events) and its retention (EVENTS_RETENTION_DAYS).

-- A test event (POST /v1/webhook_endpoints/{id}/test_events) is recorded like any event, so its
-- delivery is signed, attempted and listed like any other, but it is not in the feed.
ALTER TABLE events ADD COLUMN test boolean NOT NULL DEFAULT false;

-- The feed of one company, newest first, by keyset; and the same per type, for the `types`
-- filter and for keys that see only some families (one index range per type, merged).
DROP INDEX events_tenant_created_idx;
CREATE INDEX events_feed_idx ON events (tenant_id, created_at DESC, id DESC) WHERE NOT test;
CREATE INDEX events_feed_type_idx ON events (tenant_id, type, created_at DESC, id DESC) WHERE NOT test;

-- Retention: the oldest events of every company first.
CREATE INDEX events_created_idx ON events (created_at);

-- migrate:down

DROP INDEX events_created_idx;
DROP INDEX events_feed_type_idx;
DROP INDEX events_feed_idx;
CREATE INDEX events_tenant_created_idx ON events (tenant_id, created_at DESC, id DESC);
ALTER TABLE events DROP COLUMN test;
