-- The sealed answers (those that carry a secret) are few among the stored ones: the check at
-- start reads the newest of them, and `secrets:reseal` all of them, without a scan of the table.

CREATE INDEX idempotency_keys_sealed_idx ON idempotency_keys (updated_at) WHERE response_body_ciphertext IS NOT NULL;

-- migrate:down

DROP INDEX idempotency_keys_sealed_idx;
