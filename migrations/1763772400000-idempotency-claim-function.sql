-- An idempotent write's claim is a function, so that the claim can be sent in the same round trip
-- as the BEGIN of the request's transaction, on that transaction's connection, as one simple query
-- (which takes no parameters: the values are literals, and a function's statement keeps its plan
-- where a literal INSERT would be planned on every call). The statement is the one the process sent
-- before: a fresh claim, or the take-over of a row that expired or whose in-progress claim is stale
-- (same request, older than stale_seconds). It returns the claim's id, or NULL when the key is
-- held or answered (the caller then reads the row). docs/benchmarks.md, "The twenty-first session".

CREATE FUNCTION idempotency_claim(
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

-- migrate:down

DROP FUNCTION idempotency_claim(uuid, uuid, text, text, text, text, text, uuid, integer, integer);
