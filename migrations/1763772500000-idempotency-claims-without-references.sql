-- A claim's company and API key are no longer checked as foreign keys. Each check locked the
-- company's and the key's row (FOR KEY SHARE) in the claim's transaction, so concurrent
-- idempotent writes of one key all locked the same two rows, which PostgreSQL records as shared
-- lockers (a MultiXact), on every claim: about 0.05 ms of the machine's CPU per claim in a probe
-- of ten clients (docs/benchmarks.md, "The twenty-first session"). Nothing can dangle: a claim
-- names the company and key its request authenticated with, companies and keys are never
-- deleted (a key is revoked), and a claim is deleted 24 hours after it was made.

ALTER TABLE idempotency_keys
  DROP CONSTRAINT idempotency_keys_tenant_id_fkey,
  DROP CONSTRAINT idempotency_keys_api_key_id_fkey;

-- migrate:down

ALTER TABLE idempotency_keys
  ADD CONSTRAINT idempotency_keys_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants (id),
  ADD CONSTRAINT idempotency_keys_api_key_id_fkey FOREIGN KEY (api_key_id) REFERENCES api_keys (id);
