-- Companies, their people and API keys; platform settings; the event outbox.

CREATE TABLE tenants (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug        text NOT NULL CONSTRAINT tenants_slug_key UNIQUE
                CONSTRAINT tenants_slug_format CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  name        text NOT NULL CONSTRAINT tenants_name_length CHECK (char_length(name) BETWEEN 1 AND 200),
  active      boolean NOT NULL DEFAULT true,
  currencies  text[] NOT NULL DEFAULT '{EUR}'
                CONSTRAINT tenants_currencies_format CHECK (array_to_string(currencies, ',') ~ '^([A-Z]{3})(,[A-Z]{3})*$'),
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE users (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id    uuid NOT NULL REFERENCES tenants (id),
  email        text NOT NULL,
  permissions  text[] NOT NULL DEFAULT '{}',
  created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE UNIQUE INDEX users_tenant_email_key ON users (tenant_id, lower(email));

-- An API key is stored as its public prefix and the SHA-256 of its secret, never the secret.
CREATE TABLE api_keys (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id           uuid NOT NULL REFERENCES tenants (id),
  name                text,
  prefix              text NOT NULL CONSTRAINT api_keys_prefix_key UNIQUE,
  secret_hash         bytea NOT NULL CONSTRAINT api_keys_secret_hash_length CHECK (octet_length(secret_hash) = 32),
  scopes              text[] NOT NULL CONSTRAINT api_keys_scopes_not_empty CHECK (cardinality(scopes) > 0),
  expires_at          timestamptz,
  revoked_at          timestamptz,
  deleted_at          timestamptz,
  created_by_user_id  uuid REFERENCES users (id),
  created_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at          timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX api_keys_tenant_idx ON api_keys (tenant_id);

CREATE TABLE platform_settings (
  name   text PRIMARY KEY,
  value  text NOT NULL
);

-- Transactional outbox: an event row is written in the same transaction as the change it
-- describes; the worker relays undispatched rows to the delivery queue.
CREATE TABLE events (
  id             uuid PRIMARY KEY,
  tenant_id      uuid NOT NULL REFERENCES tenants (id),
  type           text NOT NULL,
  envelope       jsonb NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  dispatched_at  timestamptz
);
CREATE INDEX events_tenant_created_idx ON events (tenant_id, created_at DESC, id DESC);
CREATE INDEX events_undispatched_idx ON events (created_at) WHERE dispatched_at IS NULL;

-- migrate:down

DROP TABLE events;
DROP TABLE platform_settings;
DROP TABLE api_keys;
DROP TABLE users;
DROP TABLE tenants;
