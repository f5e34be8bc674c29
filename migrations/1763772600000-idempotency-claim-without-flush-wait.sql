-- A claim's commit no longer waits for its WAL flush, whichever way it is sent (with the BEGIN of
-- the request's transaction, or on its own): the setting holds to the end of the claim's
-- transaction, which commits the claim alone. The request's change commits afterwards with the
-- default setting, flushing the WAL up to itself, the claim's commit record included; its commit
-- mark or stored answer, or the claim's release, does so too when there is no change. A database
-- crash before that loses the claim together with a change that never committed, so a repeat
-- rightly runs the request. A flush costs this virtual machine's kernel about 0.1 ms of CPU, and an
-- idempotent write paid for two (docs/benchmarks.md, "The claim's commit without its flush").

CREATE OR REPLACE FUNCTION idempotency_claim(
  tenant uuid, api_key uuid, idempotency_key text, request_method text, request_path text,
  hash text, body_hash text, token uuid, retention_hours integer, stale_seconds integer
) RETURNS uuid LANGUAGE plpgsql AS $$
DECLARE
  claimed uuid;
BEGIN
  -- For the rest of the claim's transaction: see the comment above.
  PERFORM set_config('synchronous_commit', 'off', true);
  INSERT INTO idempotency_keys AS k (tenant_id, api_key_id, key, method, path, request_hash, hash_covers_query, state, lock_token, expires_at)
  VALUES (tenant, api_key, idempotency_key, request_method, request_path, hash, true, 'in_progress', token,
          clock_timestamp() + make_interval(hours => retention_hours))
  ON CONFLICT (tenant_id, api_key_id, key, method, md5(path)) DO UPDATE SET
    request_hash = EXCLUDED.request_hash,
    hash_covers_query = true,
    state = 'in_progress',
    lock_token = EXCLUDED.lock_token,
    locked_at = clock_timestamp(),
    response_status = NULL,
    response_headers = NULL,
    response_body = NULL,
    response_body_ciphertext = NULL,
    created_at = clock_timestamp(),
    updated_at = clock_timestamp(),
    expires_at = EXCLUDED.expires_at
  WHERE k.expires_at <= clock_timestamp()
     OR (k.state = 'in_progress' AND k.request_hash = CASE WHEN k.hash_covers_query THEN EXCLUDED.request_hash ELSE body_hash END
         AND k.locked_at <= clock_timestamp() - make_interval(secs => stale_seconds))
  RETURNING k.id INTO claimed;
  RETURN claimed;
END
$$;

-- migrate:down

CREATE OR REPLACE FUNCTION idempotency_claim(
  tenant uuid, api_key uuid, idempotency_key text, request_method text, request_path text,
  hash text, body_hash text, token uuid, retention_hours integer, stale_seconds integer
) RETURNS uuid LANGUAGE plpgsql AS $$
DECLARE
  claimed uuid;
BEGIN
  INSERT INTO idempotency_keys AS k (tenant_id, api_key_id, key, method, path, request_hash, hash_covers_query, state, lock_token, expires_at)
  VALUES (tenant, api_key, idempotency_key, request_method, request_path, hash, true, 'in_progress', token,
          clock_timestamp() + make_interval(hours => retention_hours))
  ON CONFLICT (tenant_id, api_key_id, key, method, md5(path)) DO UPDATE SET
    request_hash = EXCLUDED.request_hash,
    hash_covers_query = true,
    state = 'in_progress',
    lock_token = EXCLUDED.lock_token,
    locked_at = clock_timestamp(),
    response_status = NULL,
    response_headers = NULL,
    response_body = NULL,
    response_body_ciphertext = NULL,
    created_at = clock_timestamp(),
    updated_at = clock_timestamp(),
    expires_at = EXCLUDED.expires_at
  WHERE k.expires_at <= clock_timestamp()
     OR (k.state = 'in_progress' AND k.request_hash = CASE WHEN k.hash_covers_query THEN EXCLUDED.request_hash ELSE body_hash END
         AND k.locked_at <= clock_timestamp() - make_interval(secs => stale_seconds))
  RETURNING k.id INTO claimed;
  RETURN claimed;
END
$$;
