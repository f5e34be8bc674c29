-- Webhook endpoints: a company's registered receivers of events (spec sections 2, 3, 6).
--
-- An endpoint belongs to the API key that created it (spec 5.8). Its signing secret is stored
-- only encrypted (AES-256-GCM under SECRETS_KEY: 12-byte IV || 16-byte tag || ciphertext);
-- during a rotation's grace the previous secret is kept, encrypted the same way, until
-- previous_secret_expires_at.

CREATE TABLE webhook_endpoints (
  id                          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id                   uuid NOT NULL REFERENCES tenants (id),
  api_key_id                  uuid NOT NULL REFERENCES api_keys (id),
  name                        text NOT NULL CONSTRAINT webhook_endpoints_name_length CHECK (char_length(name) BETWEEN 1 AND 200),
  url                         text NOT NULL CONSTRAINT webhook_endpoints_url_length CHECK (char_length(url) BETWEEN 1 AND 2048),
  event_types                 text[] NOT NULL CONSTRAINT webhook_endpoints_event_types_not_empty CHECK (cardinality(event_types) > 0),
  pinned_version              text,
  status                      text NOT NULL DEFAULT 'active'
                                CONSTRAINT webhook_endpoints_status_check CHECK (status IN ('active', 'paused', 'disabled')),
  disabled_reason             text
                                CONSTRAINT webhook_endpoints_disabled_reason_check CHECK (disabled_reason IN (
                                  'user_deleted', 'api_key_revoked', 'api_key_inactive',
                                  'auto_consecutive_failures', 'auto_410_repeat', 'auto_7_day_all_dead')),
  pii_enabled                 boolean NOT NULL DEFAULT false,
  secret_ciphertext           bytea NOT NULL,
  previous_secret_ciphertext  bytea,
  previous_secret_expires_at  timestamptz,
  status_changed_at           timestamptz NOT NULL DEFAULT clock_timestamp(),
  created_at                  timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at                  timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT webhook_endpoints_tenant_id_key UNIQUE (tenant_id, id),
  -- 'active' never carries a reason; a deleted endpoint is always 'disabled'.
  CONSTRAINT webhook_endpoints_active_no_reason CHECK (status <> 'active' OR disabled_reason IS NULL),
  CONSTRAINT webhook_endpoints_deleted_disabled CHECK (disabled_reason IS DISTINCT FROM 'user_deleted' OR status = 'disabled')
);
CREATE INDEX webhook_endpoints_tenant_created_idx ON webhook_endpoints (tenant_id, created_at DESC, id DESC);
CREATE INDEX webhook_endpoints_api_key_idx ON webhook_endpoints (api_key_id);
-- Fan-out looks up the receiving endpoints of a company.
CREATE INDEX webhook_endpoints_tenant_active_idx ON webhook_endpoints (tenant_id) WHERE status = 'active';

-- migrate:down

DROP TABLE webhook_endpoints;
