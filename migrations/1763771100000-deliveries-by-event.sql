-- The deliveries of an event, for the foreign key webhook_deliveries → events: deleting an event
-- (the retention job, EVENTS_RETENTION_DAYS) makes PostgreSQL check that no delivery still
-- names it, one lookup per deleted event. The unique (event_id, endpoint_id) index is partial
-- (originals only) and cannot serve that lookup, so each check read the whole table: 2.4 ms
-- per event at 50,000 deliveries, a retention batch of 1,000 events 2.4 s, growing with the
-- table. Also serves the retention's test for a pending delivery of the event.
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);

-- migrate:down

DROP INDEX webhook_deliveries_event_idx;
