-- API processes cache API keys and their companies in memory. Every change to a key or a company
-- notifies channel `auth_changes` at commit (`key:<prefix>` or `tenant:<id>`), so every
-- process drops its copy before the change can be seen by a next request.

-- Arguments: the payload's kind, and the column of the old row that names it.
CREATE FUNCTION notify_auth_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changes', TG_ARGV[0] || ':' || (to_jsonb(OLD) ->> TG_ARGV[1]));
  RETURN NULL;
END;
$$;

CREATE TRIGGER api_keys_notify_change AFTER UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_auth_change('key', 'prefix');

CREATE TRIGGER tenants_notify_change AFTER UPDATE OR DELETE ON tenants
  FOR EACH ROW EXECUTE FUNCTION notify_auth_change('tenant', 'id');

-- migrate:down

DROP TRIGGER tenants_notify_change ON tenants;
DROP TRIGGER api_keys_notify_change ON api_keys;
DROP FUNCTION notify_auth_change();
