-- committed: the request's change has committed (marked in its own transaction) and its answer
-- is not stored yet. A claim in this state is never taken over: a repeat after a crash between
-- the commit and the answer is told the request ran, instead of running it a second time.
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_state;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_state CHECK (state IN ('in_progress', 'committed', 'completed', 'too_large'));
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_response;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_response CHECK (state IN ('in_progress', 'committed') OR response_status IS NOT NULL);

-- migrate:down

DELETE FROM idempotency_keys WHERE state = 'committed';
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_response;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_response CHECK (state = 'in_progress' OR response_status IS NOT NULL);
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_state;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_state CHECK (state IN ('in_progress', 'completed', 'too_large'));
