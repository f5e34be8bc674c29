-- Agent-tool server tokens (oht_<prefix>_<secret>), issued by support for one person of a
-- company. Stored as the public prefix and the SHA-256 of the secret, never the secret.
-- `tools` lists the tool names the token may call, or '*' for every tool.

CREATE TABLE mcp_tokens (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id     uuid NOT NULL REFERENCES tenants (id),
  user_id       uuid NOT NULL REFERENCES users (id),
  prefix        text NOT NULL CONSTRAINT mcp_tokens_prefix_key UNIQUE,
  secret_hash   bytea NOT NULL CONSTRAINT mcp_tokens_secret_hash_length CHECK (octet_length(secret_hash) = 32),
  tools         text[] NOT NULL CONSTRAINT mcp_tokens_tools_not_empty CHECK (cardinality(tools) > 0),
  last_used_at  timestamptz,
  revoked_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at    timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX mcp_tokens_tenant_idx ON mcp_tokens (tenant_id);
CREATE INDEX mcp_tokens_user_idx ON mcp_tokens (user_id);

-- migrate:down

DROP TABLE mcp_tokens;
