-- Stored responses of requests sent with an Idempotency-Key (spec section 8). One row per
-- (company, API key, key, method, path); the unique constraint is what makes a concurrent
-- repeat see the first request's row instead of running again, across all processes.

CREATE TABLE idempotency_keys (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenants (id),
  api_key_id       uuid NOT NULL REFERENCES api_keys (id),
  key              text NOT NULL CONSTRAINT idempotency_keys_key_length CHECK (char_length(key) BETWEEN 1 AND 255),
  method           text NOT NULL CONSTRAINT idempotency_keys_method CHECK (method IN ('POST', 'PATCH', 'DELETE')),
  path             text NOT NULL,
  -- SHA-256 (hex) of the canonical JSON of the request body: a repeat must send the same body.
  request_hash     text NOT NULL,
  -- in_progress: the first request is running; completed: response stored; too_large: the
  -- response exceeded the replay limit and only the fact that it ran is kept.
  state            text NOT NULL CONSTRAINT idempotency_keys_state CHECK (state IN ('in_progress', 'completed', 'too_large')),
  -- Changes at every claim, so a process whose stale claim was taken over cannot store its answer.
  lock_token       uuid NOT NULL,
  locked_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  response_status  integer,
  response_headers jsonb,
  response_body    text,
  created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  expires_at       timestamptz NOT NULL,
  CONSTRAINT idempotency_keys_request_key UNIQUE (tenant_id, api_key_id, key, method, path),
  CONSTRAINT idempotency_keys_response CHECK (state = 'in_progress' OR response_status IS NOT NULL)
);
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);

-- migrate:down

DROP TABLE idempotency_keys;
