-- The unique (tenant_id, id) index already serves every lookup by company. The extra
-- (tenant_id) index let PostgreSQL check the attempts' foreign key to (tenant_id, id) by
-- scanning all of the company's deliveries: the check's plan is cached per connection, and when
-- it was made on a young table both indexes looked equally cheap. Each recorded attempt then cost
-- a scan growing with the company's deliveries (a 15,000-event burst slowed to 240/s).
DROP INDEX webhook_deliveries_tenant_idx;

-- migrate:down

CREATE INDEX webhook_deliveries_tenant_idx ON webhook_deliveries (tenant_id);
