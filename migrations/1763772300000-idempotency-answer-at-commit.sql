-- A route whose answer is its transaction's result (an invoice created, changed or voided) stores
-- that answer with the claim's commit mark, in the statement sent with the COMMIT: the change and
-- its answer then commit together, and the request makes no statement after its commit
-- (docs/benchmarks.md, "The twenty-first session"). As idempotency_mark_committed, the function
-- raises when the claim is no longer this request's, so the COMMIT after it is not run.

CREATE FUNCTION idempotency_complete_at_commit(claim uuid, token uuid, status integer, headers jsonb, body text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE idempotency_keys
     SET state = 'completed', locked_at = clock_timestamp(), response_status = status, response_headers = headers,
         response_body = body, response_body_ciphertext = NULL, updated_at = clock_timestamp()
   WHERE id = claim AND lock_token = token AND state IN ('in_progress', 'committed');
  IF NOT FOUND THEN
    RAISE EXCEPTION 'idempotency claim % was taken over by a repeat', claim USING ERRCODE = 'OHI01';
  END IF;
END
$$;

-- A later transaction of the same request finds its claim completed by the first one's answer:
-- still the request's own (its lock token), so it is marked committed again, and the answer the
-- request then sends is stored over the first.
CREATE OR REPLACE FUNCTION idempotency_mark_committed(claim uuid, token uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  -- locked_at restarts: the stale limit then counts the wait for the answer from the commit.
  UPDATE idempotency_keys SET state = 'committed', locked_at = clock_timestamp(), updated_at = clock_timestamp()
   WHERE id = claim AND lock_token = token AND state IN ('in_progress', 'committed', 'completed');
  IF NOT FOUND THEN
    RAISE EXCEPTION 'idempotency claim % was taken over by a repeat', claim USING ERRCODE = 'OHI01';
  END IF;
END
$$;

-- migrate:down

CREATE OR REPLACE FUNCTION idempotency_mark_committed(claim uuid, token uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE idempotency_keys SET state = 'committed', locked_at = clock_timestamp(), updated_at = clock_timestamp()
   WHERE id = claim AND lock_token = token AND state IN ('in_progress', 'committed');
  IF NOT FOUND THEN
    RAISE EXCEPTION 'idempotency claim % was taken over by a repeat', claim USING ERRCODE = 'OHI01';
  END IF;
END
$$;
DROP FUNCTION idempotency_complete_at_commit(uuid, uuid, integer, jsonb, text);
