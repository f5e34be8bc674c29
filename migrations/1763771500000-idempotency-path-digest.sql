-- A request's path is as long as its client makes it, and a btree entry holds at most about
-- 2.7 kB: a claim on a path of some 2,800 random characters failed its insert (a 500 where the
-- route would have answered 422). A claim is unique on the path's MD5 instead; lookups name the
-- same expression. A collision could only merge two paths of one company's own key.
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_request_key;
CREATE UNIQUE INDEX idempotency_keys_request_key ON idempotency_keys (tenant_id, api_key_id, key, method, md5(path));

-- migrate:down

DROP INDEX idempotency_keys_request_key;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_request_key UNIQUE (tenant_id, api_key_id, key, method, path);
