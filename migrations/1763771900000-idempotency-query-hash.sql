-- A request's hash now covers its query string too (`replay_failed?since=…` with another `since`
-- is another request). Rows hashed on the body alone, those stored before and those an older
-- process still stores during a rolling deploy (it does not name the column), keep the default
-- and are compared with the body's hash, so their retries still replay.

ALTER TABLE idempotency_keys ADD COLUMN hash_covers_query boolean NOT NULL DEFAULT false;

-- migrate:down

ALTER TABLE idempotency_keys DROP COLUMN hash_covers_query;
