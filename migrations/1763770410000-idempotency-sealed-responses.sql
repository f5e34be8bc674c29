-- Stored idempotent answers that carry a secret (the signing secret in the answers to webhook
-- endpoint create and rotate_secret) are kept encrypted under SECRETS_KEY, never in the clear:
-- response_body_ciphertext (AES-256-GCM, IV || tag || ciphertext) instead of response_body.

ALTER TABLE idempotency_keys ADD COLUMN response_body_ciphertext bytea;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_one_body CHECK (response_body IS NULL OR response_body_ciphertext IS NULL);

-- migrate:down

ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_one_body;
ALTER TABLE idempotency_keys DROP COLUMN response_body_ciphertext;
