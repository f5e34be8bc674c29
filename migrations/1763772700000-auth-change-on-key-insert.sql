-- A new key notifies `auth_changes` too (`key:<prefix>`): processes remember for a while that a
-- prefix names no key (so an unknown prefix is answered as fast as a known one with a wrong
-- secret, which tells a prober nothing), and drop that memory when a key with it is created.

CREATE OR REPLACE FUNCTION notify_auth_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changes', TG_ARGV[0] || ':' || (coalesce(to_jsonb(OLD), to_jsonb(NEW)) ->> TG_ARGV[1]));
  RETURN NULL;
END;
$$;

DROP TRIGGER api_keys_notify_change ON api_keys;
CREATE TRIGGER api_keys_notify_change AFTER INSERT OR UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_auth_change('key', 'prefix');

-- migrate:down

DROP TRIGGER api_keys_notify_change ON api_keys;
CREATE TRIGGER api_keys_notify_change AFTER UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_auth_change('key', 'prefix');

CREATE OR REPLACE FUNCTION notify_auth_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changes', TG_ARGV[0] || ':' || (to_jsonb(OLD) ->> TG_ARGV[1]));
  RETURN NULL;
END;
$$;
