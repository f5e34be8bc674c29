-- An idempotent request's claim is marked committed by the statement sent with its transaction's
-- COMMIT, in one round trip (docs/benchmarks.md, "The twentieth session"). A simple query cannot
-- branch on a row count, so the function raises when the claim is no longer this request's (a
-- repeat took it over past the stale limit): the COMMIT after it is then not run.

CREATE FUNCTION idempotency_mark_committed(claim uuid, token uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  -- locked_at restarts: the stale limit then counts the wait for the answer from the commit.
  UPDATE idempotency_keys SET state = 'committed', locked_at = clock_timestamp(), updated_at = clock_timestamp()
   WHERE id = claim AND lock_token = token AND state IN ('in_progress', 'committed');
  IF NOT FOUND THEN
    RAISE EXCEPTION 'idempotency claim % was taken over by a repeat', claim USING ERRCODE = 'OHI01';
  END IF;
END
$$;

-- migrate:down

DROP FUNCTION idempotency_mark_committed(uuid, uuid);
