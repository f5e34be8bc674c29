-- Read modules: fleet (vehicles, work orders, fuel logs), HR (employees, leave requests,
-- timesheets), support (tickets), documents (metadata only, never file contents).
--
-- Every table is tenant-owned and indexed for its list (tenant_id, created_at DESC, id DESC).
-- References inside a module are composite (tenant_id, id) foreign keys, so a record can only
-- point at a record of its own company. References across modules (a vehicle's driver is an
-- employee, a document's owner is any resource) are plain uuids: modules own their tables.

-- Fleet -----------------------------------------------------------------------------------

CREATE TABLE vehicles (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id           uuid NOT NULL REFERENCES tenants (id),
  registration        text NOT NULL CONSTRAINT vehicles_registration_length CHECK (char_length(registration) BETWEEN 1 AND 20),
  -- ISO 3779: 17 characters, never I, O or Q.
  vin                 text CONSTRAINT vehicles_vin_format CHECK (vin ~ '^[A-HJ-NPR-Z0-9]{17}$'),
  make                text NOT NULL CONSTRAINT vehicles_make_length CHECK (char_length(make) BETWEEN 1 AND 100),
  model               text NOT NULL CONSTRAINT vehicles_model_length CHECK (char_length(model) BETWEEN 1 AND 100),
  year                integer NOT NULL CONSTRAINT vehicles_year_range CHECK (year BETWEEN 1900 AND 2100),
  fuel_type           text NOT NULL CONSTRAINT vehicles_fuel_type_values
                        CHECK (fuel_type IN ('diesel', 'petrol', 'hybrid', 'electric', 'lpg', 'cng')),
  odometer_km         integer NOT NULL DEFAULT 0 CONSTRAINT vehicles_odometer_not_negative CHECK (odometer_km >= 0),
  status              text NOT NULL DEFAULT 'active' CONSTRAINT vehicles_status_values
                        CHECK (status IN ('active', 'maintenance', 'out_of_service', 'retired')),
  -- An employee of the HR module (no foreign key across modules).
  assigned_driver_id  uuid,
  created_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT vehicles_tenant_id_key UNIQUE (tenant_id, id)
);
CREATE UNIQUE INDEX vehicles_tenant_vin_key ON vehicles (tenant_id, vin) WHERE vin IS NOT NULL;
CREATE INDEX vehicles_tenant_created_idx ON vehicles (tenant_id, created_at DESC, id DESC);

CREATE TABLE work_orders (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id         uuid NOT NULL REFERENCES tenants (id),
  number            text NOT NULL CONSTRAINT work_orders_number_length CHECK (char_length(number) BETWEEN 1 AND 40),
  vehicle_id        uuid NOT NULL,
  title             text NOT NULL CONSTRAINT work_orders_title_length CHECK (char_length(title) BETWEEN 1 AND 200),
  description       text CONSTRAINT work_orders_description_length CHECK (char_length(description) <= 5000),
  type              text NOT NULL CONSTRAINT work_orders_type_values
                      CHECK (type IN ('preventive', 'repair', 'inspection', 'tyres', 'recall')),
  status            text NOT NULL DEFAULT 'open' CONSTRAINT work_orders_status_values
                      CHECK (status IN ('open', 'scheduled', 'in_progress', 'on_hold', 'completed', 'cancelled')),
  priority          text NOT NULL DEFAULT 'normal' CONSTRAINT work_orders_priority_values
                      CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
  odometer_km       integer CONSTRAINT work_orders_odometer_not_negative CHECK (odometer_km >= 0),
  due_date          date,
  vendor_name       text CONSTRAINT work_orders_vendor_name_length CHECK (char_length(vendor_name) <= 200),
  labor_cost_minor  bigint NOT NULL DEFAULT 0 CONSTRAINT work_orders_labor_cost_not_negative CHECK (labor_cost_minor >= 0),
  parts_cost_minor  bigint NOT NULL DEFAULT 0 CONSTRAINT work_orders_parts_cost_not_negative CHECK (parts_cost_minor >= 0),
  total_cost_minor  bigint NOT NULL DEFAULT 0,
  currency          text NOT NULL CONSTRAINT work_orders_currency_format CHECK (currency ~ '^[A-Z]{3}$'),
  completed_at      timestamptz,
  created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT work_orders_tenant_number_key UNIQUE (tenant_id, number),
  CONSTRAINT work_orders_vehicle_fkey FOREIGN KEY (tenant_id, vehicle_id) REFERENCES vehicles (tenant_id, id),
  CONSTRAINT work_orders_total CHECK (total_cost_minor = labor_cost_minor + parts_cost_minor),
  CONSTRAINT work_orders_completed_at CHECK ((status = 'completed') = (completed_at IS NOT NULL))
);
CREATE INDEX work_orders_tenant_created_idx ON work_orders (tenant_id, created_at DESC, id DESC);
CREATE INDEX work_orders_vehicle_idx ON work_orders (tenant_id, vehicle_id);

CREATE TABLE fuel_logs (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id      uuid NOT NULL REFERENCES tenants (id),
  vehicle_id     uuid NOT NULL,
  -- An employee of the HR module; null when the source does not know who fuelled.
  driver_id      uuid,
  source         text NOT NULL CONSTRAINT fuel_logs_source_values
                   CHECK (source IN ('manual', 'fuel_card', 'import', 'detected_refuel')),
  fuel_type      text NOT NULL CONSTRAINT fuel_logs_fuel_type_values
                   CHECK (fuel_type IN ('diesel', 'petrol', 'lpg', 'cng', 'adblue')),
  volume_litres  numeric(9, 3) NOT NULL CONSTRAINT fuel_logs_volume_positive CHECK (volume_litres > 0),
  cost_minor     bigint NOT NULL CONSTRAINT fuel_logs_cost_not_negative CHECK (cost_minor >= 0),
  currency       text NOT NULL CONSTRAINT fuel_logs_currency_format CHECK (currency ~ '^[A-Z]{3}$'),
  odometer_km    integer CONSTRAINT fuel_logs_odometer_not_negative CHECK (odometer_km >= 0),
  station_name   text CONSTRAINT fuel_logs_station_name_length CHECK (char_length(station_name) <= 200),
  latitude       numeric(8, 6) CONSTRAINT fuel_logs_latitude_range CHECK (latitude BETWEEN -90 AND 90),
  longitude      numeric(9, 6) CONSTRAINT fuel_logs_longitude_range CHECK (longitude BETWEEN -180 AND 180),
  fuelled_at     timestamptz NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT fuel_logs_vehicle_fkey FOREIGN KEY (tenant_id, vehicle_id) REFERENCES vehicles (tenant_id, id),
  CONSTRAINT fuel_logs_position_pair CHECK ((latitude IS NULL) = (longitude IS NULL))
);
CREATE INDEX fuel_logs_tenant_created_idx ON fuel_logs (tenant_id, created_at DESC, id DESC);
CREATE INDEX fuel_logs_vehicle_idx ON fuel_logs (tenant_id, vehicle_id);

-- HR --------------------------------------------------------------------------------------

CREATE TABLE employees (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id          uuid NOT NULL REFERENCES tenants (id),
  employee_number    text NOT NULL CONSTRAINT employees_number_length CHECK (char_length(employee_number) BETWEEN 1 AND 40),
  first_name         text NOT NULL CONSTRAINT employees_first_name_length CHECK (char_length(first_name) BETWEEN 1 AND 100),
  last_name          text NOT NULL CONSTRAINT employees_last_name_length CHECK (char_length(last_name) BETWEEN 1 AND 100),
  work_email         text NOT NULL CONSTRAINT employees_work_email_format CHECK (work_email ~ '^[^@\s]+@[^@\s]+$'),
  job_title          text CONSTRAINT employees_job_title_length CHECK (char_length(job_title) <= 200),
  department         text CONSTRAINT employees_department_length CHECK (char_length(department) <= 200),
  employment_type    text NOT NULL CONSTRAINT employees_employment_type_values
                       CHECK (employment_type IN ('full_time', 'part_time', 'contractor', 'temporary', 'intern')),
  employment_status  text NOT NULL DEFAULT 'active' CONSTRAINT employees_employment_status_values
                       CHECK (employment_status IN ('active', 'on_leave', 'terminated')),
  start_date         date NOT NULL,
  end_date           date,
  manager_id         uuid,
  created_at         timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at         timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT employees_tenant_id_key UNIQUE (tenant_id, id),
  CONSTRAINT employees_tenant_number_key UNIQUE (tenant_id, employee_number),
  CONSTRAINT employees_manager_fkey FOREIGN KEY (tenant_id, manager_id) REFERENCES employees (tenant_id, id),
  CONSTRAINT employees_dates CHECK (end_date IS NULL OR end_date >= start_date),
  CONSTRAINT employees_terminated_has_end_date CHECK (employment_status <> 'terminated' OR end_date IS NOT NULL)
);
CREATE UNIQUE INDEX employees_tenant_work_email_key ON employees (tenant_id, lower(work_email));
CREATE INDEX employees_tenant_created_idx ON employees (tenant_id, created_at DESC, id DESC);

CREATE TABLE leave_requests (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id    uuid NOT NULL REFERENCES tenants (id),
  employee_id  uuid NOT NULL,
  type         text NOT NULL CONSTRAINT leave_requests_type_values
                 CHECK (type IN ('annual', 'sick', 'parental', 'unpaid', 'other')),
  status       text NOT NULL DEFAULT 'pending' CONSTRAINT leave_requests_status_values
                 CHECK (status IN ('pending', 'approved', 'rejected', 'cancelled')),
  start_date   date NOT NULL,
  end_date     date NOT NULL,
  -- Working days taken, in half days.
  days         numeric(5, 1) NOT NULL CONSTRAINT leave_requests_days_half_days CHECK (days > 0 AND days * 2 = trunc(days * 2)),
  approver_id  uuid,
  decided_at   timestamptz,
  created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT leave_requests_employee_fkey FOREIGN KEY (tenant_id, employee_id) REFERENCES employees (tenant_id, id),
  CONSTRAINT leave_requests_approver_fkey FOREIGN KEY (tenant_id, approver_id) REFERENCES employees (tenant_id, id),
  CONSTRAINT leave_requests_dates CHECK (end_date >= start_date),
  CONSTRAINT leave_requests_decision CHECK (
    (status IN ('approved', 'rejected')) = (decided_at IS NOT NULL) OR (status = 'cancelled')
  )
);
CREATE INDEX leave_requests_tenant_created_idx ON leave_requests (tenant_id, created_at DESC, id DESC);
CREATE INDEX leave_requests_employee_idx ON leave_requests (tenant_id, employee_id);

CREATE TABLE timesheets (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id          uuid NOT NULL REFERENCES tenants (id),
  employee_id        uuid NOT NULL,
  period_start_date  date NOT NULL,
  period_end_date    date NOT NULL,
  regular_hours      numeric(6, 2) NOT NULL DEFAULT 0 CONSTRAINT timesheets_regular_hours_not_negative CHECK (regular_hours >= 0),
  overtime_hours     numeric(6, 2) NOT NULL DEFAULT 0 CONSTRAINT timesheets_overtime_hours_not_negative CHECK (overtime_hours >= 0),
  status             text NOT NULL DEFAULT 'draft' CONSTRAINT timesheets_status_values
                       CHECK (status IN ('draft', 'submitted', 'approved', 'rejected')),
  submitted_at       timestamptz,
  approved_at        timestamptz,
  created_at         timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at         timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT timesheets_employee_fkey FOREIGN KEY (tenant_id, employee_id) REFERENCES employees (tenant_id, id),
  CONSTRAINT timesheets_employee_period_key UNIQUE (tenant_id, employee_id, period_start_date),
  CONSTRAINT timesheets_period CHECK (period_end_date >= period_start_date),
  CONSTRAINT timesheets_submitted_at CHECK ((status = 'draft') = (submitted_at IS NULL)),
  CONSTRAINT timesheets_approved_at CHECK ((status = 'approved') = (approved_at IS NOT NULL))
);
CREATE INDEX timesheets_tenant_created_idx ON timesheets (tenant_id, created_at DESC, id DESC);

-- Support ---------------------------------------------------------------------------------

CREATE TABLE tickets (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id          uuid NOT NULL REFERENCES tenants (id),
  number             text NOT NULL CONSTRAINT tickets_number_length CHECK (char_length(number) BETWEEN 1 AND 40),
  subject            text NOT NULL CONSTRAINT tickets_subject_length CHECK (char_length(subject) BETWEEN 1 AND 300),
  status             text NOT NULL DEFAULT 'new' CONSTRAINT tickets_status_values
                       CHECK (status IN ('new', 'open', 'pending', 'on_hold', 'solved', 'closed')),
  priority           text NOT NULL DEFAULT 'normal' CONSTRAINT tickets_priority_values
                       CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
  channel            text NOT NULL CONSTRAINT tickets_channel_values
                       CHECK (channel IN ('email', 'web', 'phone', 'chat', 'api')),
  requester_name     text CONSTRAINT tickets_requester_name_length CHECK (char_length(requester_name) <= 200),
  requester_email    text NOT NULL CONSTRAINT tickets_requester_email_format CHECK (requester_email ~ '^[^@\s]+@[^@\s]+$'),
  -- An employee of the HR module.
  assignee_id        uuid,
  first_response_at  timestamptz,
  solved_at          timestamptz,
  created_at         timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at         timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT tickets_tenant_number_key UNIQUE (tenant_id, number),
  CONSTRAINT tickets_solved_at CHECK ((status IN ('solved', 'closed')) = (solved_at IS NOT NULL))
);
CREATE INDEX tickets_tenant_created_idx ON tickets (tenant_id, created_at DESC, id DESC);

-- Documents -------------------------------------------------------------------------------

-- Metadata of a stored file; the file itself lives in object storage and is never served here.
CREATE TABLE documents (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenants (id),
  file_name        text NOT NULL CONSTRAINT documents_file_name_length CHECK (char_length(file_name) BETWEEN 1 AND 255),
  mime_type        text NOT NULL CONSTRAINT documents_mime_type_format CHECK (mime_type ~ '^[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*$'),
  size_bytes       bigint NOT NULL CONSTRAINT documents_size_not_negative CHECK (size_bytes >= 0),
  checksum_sha256  text NOT NULL CONSTRAINT documents_checksum_format CHECK (checksum_sha256 ~ '^[0-9a-f]{64}$'),
  -- The record the document is attached to, in whichever module owns it.
  owner_type       text NOT NULL CONSTRAINT documents_owner_type_values
                     CHECK (owner_type IN ('vehicle', 'work_order', 'fuel_log', 'employee', 'leave_request', 'timesheet',
                                           'ticket', 'invoice', 'payment', 'bill', 'purchase_order')),
  owner_id         uuid NOT NULL,
  uploaded_at      timestamptz NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX documents_tenant_created_idx ON documents (tenant_id, created_at DESC, id DESC);
CREATE INDEX documents_owner_idx ON documents (tenant_id, owner_type, owner_id);

-- migrate:down

DROP TABLE documents;
DROP TABLE tickets;
DROP TABLE timesheets;
DROP TABLE leave_requests;
DROP TABLE employees;
DROP TABLE fuel_logs;
DROP TABLE work_orders;
DROP TABLE vehicles;
