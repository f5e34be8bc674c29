-- Finance: reference data (customers, products, tax rates), invoices and their lines, payments,
-- bills, purchase orders, credit notes, the finance audit trail and gap-free number sequences.
--
-- Tenant consistency is enforced by the database: every table that references another
-- tenant-owned row does so through a composite foreign key (tenant_id, <x>_id) onto a
-- UNIQUE (tenant_id, id) of the target, so a row can never point at another company's record.
-- Amounts are integer minor units in bigint, capped at 2^53 - 1 so they stay exact as JSON numbers.

CREATE TABLE customers (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id   uuid NOT NULL REFERENCES tenants (id),
  name        text NOT NULL CONSTRAINT customers_name_length CHECK (char_length(name) BETWEEN 1 AND 200),
  email       text,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT customers_tenant_id_key UNIQUE (tenant_id, id)
);
CREATE INDEX customers_tenant_created_idx ON customers (tenant_id, created_at DESC, id DESC);

CREATE TABLE products (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id   uuid NOT NULL REFERENCES tenants (id),
  name        text NOT NULL CONSTRAINT products_name_length CHECK (char_length(name) BETWEEN 1 AND 200),
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT products_tenant_id_key UNIQUE (tenant_id, id)
);
CREATE INDEX products_tenant_created_idx ON products (tenant_id, created_at DESC, id DESC);

-- A percentage: 19 means 19 %.
CREATE TABLE tax_rates (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id   uuid NOT NULL REFERENCES tenants (id),
  name        text NOT NULL CONSTRAINT tax_rates_name_length CHECK (char_length(name) BETWEEN 1 AND 200),
  rate        numeric NOT NULL CONSTRAINT tax_rates_rate_range CHECK (rate BETWEEN 0 AND 100),
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT tax_rates_tenant_id_key UNIQUE (tenant_id, id)
);
CREATE INDEX tax_rates_tenant_created_idx ON tax_rates (tenant_id, created_at DESC, id DESC);

-- The next number of each gap-free document sequence, per company, kind and year. A number is
-- taken by an UPDATE inside the transaction that issues the document, so the row lock
-- serialises issuers and a rollback gives the number back.
CREATE TABLE finance_number_sequences (
  tenant_id   uuid NOT NULL REFERENCES tenants (id),
  kind        text NOT NULL CONSTRAINT finance_number_sequences_kind CHECK (kind IN ('invoice', 'credit_note', 'purchase_order')),
  year        integer NOT NULL CONSTRAINT finance_number_sequences_year CHECK (year BETWEEN 1 AND 9999),
  last_value  bigint NOT NULL CONSTRAINT finance_number_sequences_positive CHECK (last_value > 0),
  PRIMARY KEY (tenant_id, kind, year)
);

CREATE TABLE invoices (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenants (id),
  number           text,
  customer_id      uuid NOT NULL,
  status           text NOT NULL CONSTRAINT invoices_status CHECK (status IN ('draft', 'issued', 'partial', 'overdue', 'paid', 'void')),
  currency         text NOT NULL CONSTRAINT invoices_currency_format CHECK (currency ~ '^[A-Z]{3}$'),
  subtotal_minor   bigint NOT NULL CONSTRAINT invoices_subtotal_range CHECK (subtotal_minor BETWEEN 0 AND 9007199254740991),
  tax_minor        bigint NOT NULL CONSTRAINT invoices_tax_range CHECK (tax_minor BETWEEN 0 AND 9007199254740991),
  total_minor      bigint NOT NULL CONSTRAINT invoices_total_range CHECK (total_minor BETWEEN 0 AND 9007199254740991),
  paid_minor       bigint NOT NULL DEFAULT 0,
  balance_minor    bigint NOT NULL,
  issue_date       date NOT NULL,
  due_date         date NOT NULL,
  issued_at        timestamptz,
  voided_at        timestamptz,
  -- Set by the Finance application when the invoice is marked overdue; kept through payments and
  -- refunds so a refunded invoice goes back to overdue rather than issued.
  overdue_at       timestamptz,
  einvoice_status  text NOT NULL DEFAULT 'none' CONSTRAINT invoices_einvoice_status CHECK (einvoice_status IN ('none')),
  notes            text CONSTRAINT invoices_notes_length CHECK (char_length(notes) <= 2000),
  sales_order_id   uuid,
  created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT invoices_tenant_id_key UNIQUE (tenant_id, id),
  CONSTRAINT invoices_tenant_number_key UNIQUE (tenant_id, number),
  CONSTRAINT invoices_customer_fkey FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id),
  CONSTRAINT invoices_total_sum CHECK (total_minor = subtotal_minor + tax_minor),
  CONSTRAINT invoices_paid_range CHECK (paid_minor BETWEEN 0 AND total_minor),
  CONSTRAINT invoices_balance CHECK (balance_minor = CASE WHEN status = 'void' THEN 0 ELSE total_minor - paid_minor END),
  CONSTRAINT invoices_due_after_issue CHECK (due_date >= issue_date),
  CONSTRAINT invoices_draft_unnumbered CHECK ((status = 'draft') = (number IS NULL)),
  CONSTRAINT invoices_draft_unissued CHECK ((status = 'draft') = (issued_at IS NULL)),
  CONSTRAINT invoices_void_voided_at CHECK ((status = 'void') = (voided_at IS NOT NULL)),
  CONSTRAINT invoices_paid_settled CHECK (status <> 'paid' OR (paid_minor = total_minor AND total_minor > 0)),
  CONSTRAINT invoices_partial_part_paid CHECK (status <> 'partial' OR paid_minor BETWEEN 1 AND total_minor - 1),
  CONSTRAINT invoices_draft_unpaid CHECK (status <> 'draft' OR paid_minor = 0)
);
CREATE INDEX invoices_tenant_created_idx ON invoices (tenant_id, created_at DESC, id DESC);
CREATE INDEX invoices_customer_idx ON invoices (tenant_id, customer_id);

CREATE TABLE invoice_lines (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id         uuid NOT NULL REFERENCES tenants (id),
  invoice_id        uuid NOT NULL,
  position          integer NOT NULL CONSTRAINT invoice_lines_position_range CHECK (position >= 0),
  description       text NOT NULL CONSTRAINT invoice_lines_description_length CHECK (char_length(description) BETWEEN 1 AND 1000),
  qty               numeric NOT NULL CONSTRAINT invoice_lines_qty_range CHECK (qty BETWEEN 0 AND 1000000000),
  unit_price_minor  bigint NOT NULL CONSTRAINT invoice_lines_unit_price_range CHECK (unit_price_minor BETWEEN 0 AND 9007199254740991),
  tax_rate          numeric NOT NULL CONSTRAINT invoice_lines_tax_rate_range CHECK (tax_rate BETWEEN 0 AND 100),
  product_id        uuid,
  tax_rate_id       uuid,
  net_minor         bigint NOT NULL CONSTRAINT invoice_lines_net_range CHECK (net_minor BETWEEN 0 AND 9007199254740991),
  tax_minor         bigint NOT NULL CONSTRAINT invoice_lines_tax_range CHECK (tax_minor BETWEEN 0 AND net_minor),
  created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT invoice_lines_invoice_fkey FOREIGN KEY (tenant_id, invoice_id) REFERENCES invoices (tenant_id, id) ON DELETE CASCADE,
  CONSTRAINT invoice_lines_product_fkey FOREIGN KEY (tenant_id, product_id) REFERENCES products (tenant_id, id),
  CONSTRAINT invoice_lines_tax_rate_fkey FOREIGN KEY (tenant_id, tax_rate_id) REFERENCES tax_rates (tenant_id, id),
  CONSTRAINT invoice_lines_invoice_position_key UNIQUE (invoice_id, position)
);

-- The document a void posts: it reverses the invoice's amounts in full.
CREATE TABLE credit_notes (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id       uuid NOT NULL REFERENCES tenants (id),
  invoice_id      uuid NOT NULL,
  number          text NOT NULL,
  currency        text NOT NULL CONSTRAINT credit_notes_currency_format CHECK (currency ~ '^[A-Z]{3}$'),
  subtotal_minor  bigint NOT NULL CONSTRAINT credit_notes_subtotal_range CHECK (subtotal_minor >= 0),
  tax_minor       bigint NOT NULL CONSTRAINT credit_notes_tax_range CHECK (tax_minor >= 0),
  total_minor     bigint NOT NULL,
  reason          text CONSTRAINT credit_notes_reason_length CHECK (char_length(reason) <= 500),
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT credit_notes_invoice_fkey FOREIGN KEY (tenant_id, invoice_id) REFERENCES invoices (tenant_id, id),
  CONSTRAINT credit_notes_invoice_key UNIQUE (invoice_id),
  CONSTRAINT credit_notes_tenant_number_key UNIQUE (tenant_id, number),
  CONSTRAINT credit_notes_total_sum CHECK (total_minor = subtotal_minor + tax_minor)
);
CREATE INDEX credit_notes_tenant_created_idx ON credit_notes (tenant_id, created_at DESC, id DESC);

CREATE TABLE purchase_orders (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id       uuid NOT NULL REFERENCES tenants (id),
  number          text NOT NULL,
  supplier_name   text NOT NULL CONSTRAINT purchase_orders_supplier_name_length CHECK (char_length(supplier_name) BETWEEN 1 AND 200),
  status          text NOT NULL CONSTRAINT purchase_orders_status CHECK (status IN ('draft', 'sent', 'partially_received', 'received', 'closed', 'cancelled')),
  currency        text NOT NULL CONSTRAINT purchase_orders_currency_format CHECK (currency ~ '^[A-Z]{3}$'),
  subtotal_minor  bigint NOT NULL CONSTRAINT purchase_orders_subtotal_range CHECK (subtotal_minor BETWEEN 0 AND 9007199254740991),
  tax_minor       bigint NOT NULL CONSTRAINT purchase_orders_tax_range CHECK (tax_minor BETWEEN 0 AND 9007199254740991),
  total_minor     bigint NOT NULL CONSTRAINT purchase_orders_total_range CHECK (total_minor BETWEEN 0 AND 9007199254740991),
  order_date      date NOT NULL,
  expected_date   date,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT purchase_orders_tenant_id_key UNIQUE (tenant_id, id),
  CONSTRAINT purchase_orders_tenant_number_key UNIQUE (tenant_id, number),
  CONSTRAINT purchase_orders_total_sum CHECK (total_minor = subtotal_minor + tax_minor),
  CONSTRAINT purchase_orders_expected_after_order CHECK (expected_date >= order_date)
);
CREATE INDEX purchase_orders_tenant_created_idx ON purchase_orders (tenant_id, created_at DESC, id DESC);

-- A supplier's invoice to the company. `number` is the supplier's own document number.
CREATE TABLE bills (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id          uuid NOT NULL REFERENCES tenants (id),
  number             text NOT NULL CONSTRAINT bills_number_length CHECK (char_length(number) BETWEEN 1 AND 100),
  supplier_name      text NOT NULL CONSTRAINT bills_supplier_name_length CHECK (char_length(supplier_name) BETWEEN 1 AND 200),
  purchase_order_id  uuid,
  status             text NOT NULL CONSTRAINT bills_status CHECK (status IN ('draft', 'open', 'partial', 'overdue', 'paid', 'void')),
  currency           text NOT NULL CONSTRAINT bills_currency_format CHECK (currency ~ '^[A-Z]{3}$'),
  subtotal_minor     bigint NOT NULL CONSTRAINT bills_subtotal_range CHECK (subtotal_minor BETWEEN 0 AND 9007199254740991),
  tax_minor          bigint NOT NULL CONSTRAINT bills_tax_range CHECK (tax_minor BETWEEN 0 AND 9007199254740991),
  total_minor        bigint NOT NULL CONSTRAINT bills_total_range CHECK (total_minor BETWEEN 0 AND 9007199254740991),
  paid_minor         bigint NOT NULL DEFAULT 0,
  balance_minor      bigint NOT NULL,
  issue_date         date NOT NULL,
  due_date           date NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at         timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT bills_tenant_id_key UNIQUE (tenant_id, id),
  CONSTRAINT bills_supplier_number_key UNIQUE (tenant_id, supplier_name, number),
  CONSTRAINT bills_purchase_order_fkey FOREIGN KEY (tenant_id, purchase_order_id) REFERENCES purchase_orders (tenant_id, id),
  CONSTRAINT bills_total_sum CHECK (total_minor = subtotal_minor + tax_minor),
  CONSTRAINT bills_paid_range CHECK (paid_minor BETWEEN 0 AND total_minor),
  CONSTRAINT bills_balance CHECK (balance_minor = CASE WHEN status = 'void' THEN 0 ELSE total_minor - paid_minor END),
  CONSTRAINT bills_due_after_issue CHECK (due_date >= issue_date)
);
CREATE INDEX bills_tenant_created_idx ON bills (tenant_id, created_at DESC, id DESC);

-- Money received from a customer (direction 'in', optionally against an invoice) or paid to a
-- supplier (direction 'out', optionally against a bill).
CREATE TABLE payments (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id       uuid NOT NULL REFERENCES tenants (id),
  invoice_id      uuid,
  bill_id         uuid,
  amount_minor    bigint NOT NULL CONSTRAINT payments_amount_range CHECK (amount_minor BETWEEN 1 AND 9007199254740991),
  currency        text NOT NULL CONSTRAINT payments_currency_format CHECK (currency ~ '^[A-Z]{3}$'),
  direction       text NOT NULL CONSTRAINT payments_direction CHECK (direction IN ('in', 'out')),
  status          text NOT NULL CONSTRAINT payments_status CHECK (status IN ('received', 'refunded', 'failed')),
  received_at     timestamptz NOT NULL,
  refunded_at     timestamptz,
  failure_reason  text,
  created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT payments_invoice_fkey FOREIGN KEY (tenant_id, invoice_id) REFERENCES invoices (tenant_id, id),
  CONSTRAINT payments_bill_fkey FOREIGN KEY (tenant_id, bill_id) REFERENCES bills (tenant_id, id),
  CONSTRAINT payments_direction_target CHECK ((direction = 'in' AND bill_id IS NULL) OR (direction = 'out' AND invoice_id IS NULL)),
  CONSTRAINT payments_refunded_at CHECK ((status = 'refunded') = (refunded_at IS NOT NULL)),
  CONSTRAINT payments_failure_reason CHECK ((status = 'failed') = (failure_reason IS NOT NULL))
);
CREATE INDEX payments_tenant_created_idx ON payments (tenant_id, created_at DESC, id DESC);
CREATE INDEX payments_invoice_idx ON payments (invoice_id) WHERE invoice_id IS NOT NULL;

-- Who did what to a finance record and why: the API key for API writes, the Finance
-- application for its own operations.
CREATE TABLE finance_audit_trail (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id    uuid NOT NULL REFERENCES tenants (id),
  entity_type  text NOT NULL CONSTRAINT finance_audit_trail_entity_type CHECK (entity_type IN ('invoice', 'payment')),
  entity_id    uuid NOT NULL,
  action       text NOT NULL,
  reason       text,
  api_key_id   uuid REFERENCES api_keys (id),
  actor        text NOT NULL CONSTRAINT finance_audit_trail_actor CHECK (actor IN ('api_key', 'finance_application')),
  created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT finance_audit_trail_actor_key CHECK ((actor = 'api_key') = (api_key_id IS NOT NULL))
);
CREATE INDEX finance_audit_trail_entity_idx ON finance_audit_trail (tenant_id, entity_type, entity_id, created_at);

-- migrate:down

DROP TABLE finance_audit_trail;
DROP TABLE payments;
DROP TABLE bills;
DROP TABLE purchase_orders;
DROP TABLE credit_notes;
DROP TABLE invoice_lines;
DROP TABLE invoices;
DROP TABLE finance_number_sequences;
DROP TABLE tax_rates;
DROP TABLE products;
DROP TABLE customers;
