-- Every idempotent write updates its claim twice: the commit mark, then the answer. An update
-- that changes no indexed column, and finds room on its page, is heap-only: PostgreSQL adds no
-- index entry for it, where otherwise each update adds one to every index of the table. The
-- sealed answers are now found by the claim's creation time, which neither update changes (their
-- updated_at changed in both), and pages keep room for the updates. (Storing a sealed answer still
-- sets the column of that index's condition, so it alone adds an entry.)

DROP INDEX idempotency_keys_sealed_idx;
CREATE INDEX idempotency_keys_sealed_idx ON idempotency_keys (created_at) WHERE response_body_ciphertext IS NOT NULL;
ALTER TABLE idempotency_keys SET (fillfactor = 70);

-- migrate:down

ALTER TABLE idempotency_keys RESET (fillfactor);
DROP INDEX idempotency_keys_sealed_idx;
CREATE INDEX idempotency_keys_sealed_idx ON idempotency_keys (updated_at) WHERE response_body_ciphertext IS NOT NULL;
