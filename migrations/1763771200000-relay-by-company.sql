-- Undispatched events by company, oldest first: the relay serves the companies with events to
-- relay in turn (DeliveryStore.relay), so one company's backlog never holds back another's
-- events. Replaces the index of all undispatched events by age, which served the relay alone.
CREATE INDEX events_undispatched_company_idx ON events (tenant_id, created_at) WHERE dispatched_at IS NULL;
DROP INDEX events_undispatched_idx;

-- migrate:down

CREATE INDEX events_undispatched_idx ON events (created_at) WHERE dispatched_at IS NULL;
DROP INDEX events_undispatched_company_idx;
