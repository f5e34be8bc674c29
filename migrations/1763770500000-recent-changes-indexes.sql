-- The agent tools' recent_<resource> reads each company's rows by last change, newest first.
-- One index per readable table, like the (tenant_id, created_at DESC, id DESC) index of its list.
CREATE INDEX invoices_tenant_updated_idx ON invoices (tenant_id, updated_at DESC, id DESC);
CREATE INDEX payments_tenant_updated_idx ON payments (tenant_id, updated_at DESC, id DESC);
CREATE INDEX bills_tenant_updated_idx ON bills (tenant_id, updated_at DESC, id DESC);
CREATE INDEX purchase_orders_tenant_updated_idx ON purchase_orders (tenant_id, updated_at DESC, id DESC);
CREATE INDEX work_orders_tenant_updated_idx ON work_orders (tenant_id, updated_at DESC, id DESC);
CREATE INDEX vehicles_tenant_updated_idx ON vehicles (tenant_id, updated_at DESC, id DESC);
CREATE INDEX fuel_logs_tenant_updated_idx ON fuel_logs (tenant_id, updated_at DESC, id DESC);
CREATE INDEX employees_tenant_updated_idx ON employees (tenant_id, updated_at DESC, id DESC);
CREATE INDEX leave_requests_tenant_updated_idx ON leave_requests (tenant_id, updated_at DESC, id DESC);
CREATE INDEX timesheets_tenant_updated_idx ON timesheets (tenant_id, updated_at DESC, id DESC);
CREATE INDEX tickets_tenant_updated_idx ON tickets (tenant_id, updated_at DESC, id DESC);
CREATE INDEX documents_tenant_updated_idx ON documents (tenant_id, updated_at DESC, id DESC);

-- migrate:down
DROP INDEX invoices_tenant_updated_idx;
DROP INDEX payments_tenant_updated_idx;
DROP INDEX bills_tenant_updated_idx;
DROP INDEX purchase_orders_tenant_updated_idx;
DROP INDEX work_orders_tenant_updated_idx;
DROP INDEX vehicles_tenant_updated_idx;
DROP INDEX fuel_logs_tenant_updated_idx;
DROP INDEX employees_tenant_updated_idx;
DROP INDEX leave_requests_tenant_updated_idx;
DROP INDEX timesheets_tenant_updated_idx;
DROP INDEX tickets_tenant_updated_idx;
DROP INDEX documents_tenant_updated_idx;
