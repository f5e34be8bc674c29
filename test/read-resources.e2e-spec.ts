import type { OpenAPIObject } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Scope } from '../src/platform/catalog/scopes.js';
import { FEATURE_TAGS } from '../src/app/features.js';
import { buildOpenApiDocument } from '../src/platform/openapi/openapi-document.js';
import { startApi, type TestApi } from './support/api.js';
import { seedRecords } from './support/demo-data.js';
import { createTenantSession, type TenantSession } from './support/tenant-session.js';

/**
 * The read endpoints of fleet, HR, support and documents (spec section 4), one table row per
 * resource: item shape, page envelope and limits, keyset walk, cursor errors, 404, tenant
 * isolation, scopes and the OpenAPI schema.
 */

type Kind = 'uuid' | 'string' | 'email' | 'integer' | 'number' | 'date' | 'timestamp' | 'currency' | 'sha256' | readonly string[];
type Field = Kind | { nullable: Kind };
const nullable = (kind: Kind): Field => ({ nullable: kind });
type Item = Record<string, unknown>;

interface ResourceCase {
  path: string;
  scope: Scope;
  /** Key of the seeders' id list of this resource. */
  ids: string;
  schema: string;
  fields: Record<string, Field>;
  /** jsonb members replacing unique columns when a stored row is copied as a new record. */
  copy: string;
  /** Rules between fields of one item. */
  invariants: (item: Item) => void;
}

const STAMPS = { created_at: 'timestamp', updated_at: 'timestamp' } as const;

const CASES: ResourceCase[] = [
  {
    path: 'vehicles',
    scope: Scope.FmVehiclesRead,
    ids: 'vehicle_ids',
    schema: 'VehicleDto',
    fields: {
      id: 'uuid',
      registration: 'string',
      vin: nullable('string'),
      make: 'string',
      model: 'string',
      year: 'integer',
      fuel_type: ['diesel', 'petrol', 'hybrid', 'electric', 'lpg', 'cng'],
      odometer_km: 'integer',
      status: ['active', 'maintenance', 'out_of_service', 'retired'],
      assigned_driver_id: nullable('uuid'),
      ...STAMPS,
    },
    copy: `'vin', NULL`,
    invariants: (item) => {
      if (item.vin !== null) expect(item.vin).toMatch(/^[A-HJ-NPR-Z0-9]{17}$/);
    },
  },
  {
    path: 'work_orders',
    scope: Scope.FmWorkOrdersRead,
    ids: 'work_order_ids',
    schema: 'WorkOrderDto',
    fields: {
      id: 'uuid',
      number: 'string',
      vehicle_id: 'uuid',
      title: 'string',
      description: nullable('string'),
      type: ['preventive', 'repair', 'inspection', 'tyres', 'recall'],
      status: ['open', 'scheduled', 'in_progress', 'on_hold', 'completed', 'cancelled'],
      priority: ['low', 'normal', 'high', 'urgent'],
      odometer_km: nullable('integer'),
      due_date: nullable('date'),
      vendor_name: nullable('string'),
      labor_cost_minor: 'integer',
      parts_cost_minor: 'integer',
      total_cost_minor: 'integer',
      currency: 'currency',
      completed_at: nullable('timestamp'),
      ...STAMPS,
    },
    copy: `'number', gen_random_uuid()::text`,
    invariants: (item) => {
      expect(item.total_cost_minor).toBe((item.labor_cost_minor as number) + (item.parts_cost_minor as number));
      expect(item.completed_at !== null).toBe(item.status === 'completed');
    },
  },
  {
    path: 'fuel_logs',
    scope: Scope.FmFuelLogsRead,
    ids: 'fuel_log_ids',
    schema: 'FuelLogDto',
    fields: {
      id: 'uuid',
      vehicle_id: 'uuid',
      driver_id: nullable('uuid'),
      source: ['manual', 'fuel_card', 'import', 'detected_refuel'],
      fuel_type: ['diesel', 'petrol', 'lpg', 'cng', 'adblue'],
      volume_litres: 'number',
      cost_minor: 'integer',
      currency: 'currency',
      odometer_km: nullable('integer'),
      station_name: nullable('string'),
      latitude: nullable('number'),
      longitude: nullable('number'),
      fuelled_at: 'timestamp',
      ...STAMPS,
    },
    copy: '',
    invariants: (item) => {
      expect(item.volume_litres as number).toBeGreaterThan(0);
      expect(item.latitude === null).toBe(item.longitude === null);
    },
  },
  {
    path: 'employees',
    scope: Scope.HrEmployeesRead,
    ids: 'employee_ids',
    schema: 'EmployeeDto',
    fields: {
      id: 'uuid',
      employee_number: 'string',
      first_name: 'string',
      last_name: 'string',
      work_email: 'email',
      job_title: nullable('string'),
      department: nullable('string'),
      employment_type: ['full_time', 'part_time', 'contractor', 'temporary', 'intern'],
      employment_status: ['active', 'on_leave', 'terminated'],
      start_date: 'date',
      end_date: nullable('date'),
      manager_id: nullable('uuid'),
      ...STAMPS,
    },
    copy: `'employee_number', gen_random_uuid()::text, 'work_email', gen_random_uuid()::text || '@copy.example'`,
    invariants: (item) => {
      if (item.employment_status === 'terminated') expect(item.end_date).not.toBeNull();
      if (item.end_date !== null) expect(item.end_date as string >= (item.start_date as string)).toBe(true);
    },
  },
  {
    path: 'leave_requests',
    scope: Scope.HrLeaveRequestsRead,
    ids: 'leave_request_ids',
    schema: 'LeaveRequestDto',
    fields: {
      id: 'uuid',
      employee_id: 'uuid',
      type: ['annual', 'sick', 'parental', 'unpaid', 'other'],
      status: ['pending', 'approved', 'rejected', 'cancelled'],
      start_date: 'date',
      end_date: 'date',
      days: 'number',
      approver_id: nullable('uuid'),
      decided_at: nullable('timestamp'),
      ...STAMPS,
    },
    copy: '',
    invariants: (item) => {
      expect((item.end_date as string) >= (item.start_date as string)).toBe(true);
      expect(((item.days as number) * 2) % 1).toBe(0);
      if (item.status === 'pending') expect(item.decided_at).toBeNull();
    },
  },
  {
    path: 'timesheets',
    scope: Scope.HrTimesheetsRead,
    ids: 'timesheet_ids',
    schema: 'TimesheetDto',
    fields: {
      id: 'uuid',
      employee_id: 'uuid',
      period_start_date: 'date',
      period_end_date: 'date',
      regular_hours: 'number',
      overtime_hours: 'number',
      total_hours: 'number',
      status: ['draft', 'submitted', 'approved', 'rejected'],
      submitted_at: nullable('timestamp'),
      approved_at: nullable('timestamp'),
      ...STAMPS,
    },
    // A period far from the seeded ones, so the copy does not collide with (employee, period).
    copy: `'period_start_date', DATE '1900-01-01' + floor(random() * 30000)::int, 'period_end_date', DATE '2200-01-01'`,
    invariants: (item) => {
      expect(item.total_hours).toBeCloseTo((item.regular_hours as number) + (item.overtime_hours as number), 10);
      expect(item.submitted_at === null).toBe(item.status === 'draft');
      expect(item.approved_at !== null).toBe(item.status === 'approved');
    },
  },
  {
    path: 'tickets',
    scope: Scope.SupportTicketsRead,
    ids: 'ticket_ids',
    schema: 'TicketDto',
    fields: {
      id: 'uuid',
      number: 'string',
      subject: 'string',
      status: ['new', 'open', 'pending', 'on_hold', 'solved', 'closed'],
      priority: ['low', 'normal', 'high', 'urgent'],
      channel: ['email', 'web', 'phone', 'chat', 'api'],
      requester_name: nullable('string'),
      requester_email: 'email',
      assignee_id: nullable('uuid'),
      first_response_at: nullable('timestamp'),
      solved_at: nullable('timestamp'),
      ...STAMPS,
    },
    copy: `'number', gen_random_uuid()::text`,
    invariants: (item) => {
      expect(item.solved_at !== null).toBe(item.status === 'solved' || item.status === 'closed');
    },
  },
  {
    path: 'documents',
    scope: Scope.FilesDocumentsRead,
    ids: 'document_ids',
    schema: 'DocumentDto',
    fields: {
      id: 'uuid',
      file_name: 'string',
      mime_type: 'string',
      size_bytes: 'integer',
      checksum_sha256: 'sha256',
      owner_type: ['vehicle', 'work_order', 'fuel_log', 'employee', 'leave_request', 'timesheet', 'ticket', 'invoice', 'payment', 'bill', 'purchase_order'],
      owner_id: 'uuid',
      uploaded_at: 'timestamp',
      ...STAMPS,
    },
    copy: '',
    invariants: (item) => {
      expect(item.mime_type).toMatch(/^[a-z0-9.+-]+\/[a-z0-9.+-]+$/);
      expect(item).not.toHaveProperty('content');
    },
  },
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function matches(value: unknown, kind: Kind): boolean {
  if (Array.isArray(kind)) return kind.includes(value as string);
  switch (kind) {
    case 'uuid':
      return typeof value === 'string' && UUID.test(value);
    case 'string':
      return typeof value === 'string' && value.length > 0;
    case 'email':
      return typeof value === 'string' && /^[^@\s]+@[^@\s]+\.[a-z]+$/.test(value);
    case 'integer':
      return Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
    case 'timestamp':
      return typeof value === 'string' && RFC3339_UTC.test(value) && !Number.isNaN(Date.parse(value));
    case 'currency':
      return typeof value === 'string' && /^[A-Z]{3}$/.test(value);
    case 'sha256':
      return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
    default:
      return false;
  }
}

/** Checks every member of an item against its declared kind; exactly the declared members. */
function expectShape(item: Item, resource: ResourceCase): void {
  expect(Object.keys(item).sort()).toEqual(Object.keys(resource.fields).sort());
  const wrong = Object.entries(resource.fields)
    .filter(([name, field]) => {
      const value = item[name];
      if (typeof field === 'object' && !Array.isArray(field)) return !(value === null || matches(value, (field as { nullable: Kind }).nullable));
      return !matches(value, field as Kind);
    })
    .map(([name]) => `${name}=${JSON.stringify(item[name])}`);
  expect(wrong).toEqual([]);
  resource.invariants(item);
}

interface JsonSchema {
  $ref?: string;
  properties?: Record<string, JsonSchema & { items?: JsonSchema }>;
}

/** The application/json schema of an OpenAPI response object. */
const jsonSchema = (response: unknown): JsonSchema => (response as { content: Record<string, { schema: JsonSchema }> }).content['application/json'].schema;

describe('read resources: fleet, HR, support, documents (e2e)', () => {
  let api: TestApi;
  let db: DataSource;
  let company: TenantSession;
  let other: TenantSession;
  let otherIds: Record<string, string[]>;
  let openapi: OpenAPIObject;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    company = await createTenantSession(api.app, { scopes: [Scope.All] });
    other = await createTenantSession(api.app, { scopes: [Scope.All] });
    // 120 per resource: more than the default page (50) and the largest one (100).
    await seedRecords(api.app, company.tenant.id, 120, 1);
    otherIds = await seedRecords(api.app, other.tenant.id, 9, 2);
    openapi = buildOpenApiDocument(api.app, api.config, FEATURE_TAGS);
  });
  afterAll(() => api.close());

  /** Ids of a company's stored rows in list order, optionally only those after `afterId`. */
  async function storedOrder(table: string, tenantId: string, afterId?: string): Promise<string[]> {
    const after = afterId ? 'AND (created_at, id) < (SELECT created_at, id FROM ' + table + ' WHERE id = $2)' : '';
    const rows: { id: string }[] = await db.query(
      `SELECT id FROM ${table} WHERE tenant_id = $1 ${after} ORDER BY created_at DESC, id DESC`,
      afterId ? [tenantId, afterId] : [tenantId],
    );
    return rows.map((row) => row.id);
  }

  // `other`: the next resource, whose scope and cursors must not work here; `seed`: a faker seed of its own.
  const cases = CASES.map((resource, index) => ({ ...resource, other: CASES[(index + 1) % CASES.length], seed: 100 + index }));

  describe.each(cases)('GET /v1/$path', (resource) => {
    const { path } = resource;
    const table = path;
    let auth: string;

    beforeAll(async () => {
      auth = (await company.newKey([resource.scope])).auth;
    });

    const list = (query = '', key = auth) => api.http.get(`/v1/${path}${query}`).set('Authorization', key);

    /** Follows next_cursor from `cursor` to the end; returns the items seen. */
    async function walk(limit: number, cursor?: string): Promise<{ ids: string[]; items: Item[] }> {
      const items: Item[] = [];
      let next = cursor;
      for (let page = 0; page < 1000; page += 1) {
        const res = await list(`?limit=${limit}${next ? `&cursor=${encodeURIComponent(next)}` : ''}`);
        expect(res.status).toBe(200);
        items.push(...res.body.data);
        if (!res.body.has_more) {
          expect(res.body.next_cursor).toBeNull();
          return { ids: items.map((item) => item.id as string), items };
        }
        expect(res.body.data).toHaveLength(limit);
        next = res.body.next_cursor;
      }
      throw new Error('the walk did not end');
    }

    it('answers the page envelope, 50 items by default, newest first', async () => {
      const res = await list();
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['x-trace-id']).toMatch(/^[\da-f]{32}$/);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
      expect(res.body.data).toHaveLength(50);
      expect(res.body.has_more).toBe(true);
      expect(typeof res.body.next_cursor).toBe('string');
      expect(res.body.data.map((item: Item) => item.id)).toEqual((await storedOrder(table, company.tenant.id)).slice(0, 50));
      for (const item of res.body.data) expectShape(item, resource);
    });

    it.each([
      ['0', 1],
      ['-7', 1],
      ['1', 1],
      ['100', 100],
      ['101', 100],
      ['5000', 100],
    ])('counts limit=%s as %d', async (limit, expected) => {
      const res = await list(`?limit=${limit}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(expected);
      expect(res.body.has_more).toBe(true);
    });

    it('refuses a limit that is not an integer with 422 invalid_input', async () => {
      const res = await list('?limit=ten');
      expect(res.status).toBe(422);
      expect(res.body.detail_key).toBe('errors.common.validation.invalid_input');
    });

    it('walks every record exactly once in creation order to the microsecond, ties broken by id', async () => {
      const stored = await storedOrder(table, company.tenant.id);
      // The seeded data has both cases the cursor must get right; make sure they are there.
      const [{ ties, neighbours }] = await db.query(
        `SELECT
           (SELECT count(*) FROM (SELECT 1 FROM ${table} WHERE tenant_id = $1 GROUP BY created_at HAVING count(*) > 1) t)::int AS ties,
           (SELECT count(*) FROM ${table} x JOIN ${table} y ON y.tenant_id = x.tenant_id AND y.created_at = x.created_at + interval '1 microsecond'
             WHERE x.tenant_id = $1)::int AS neighbours`,
        [company.tenant.id],
      );
      expect(ties).toBeGreaterThan(0);
      expect(neighbours).toBeGreaterThan(0);

      const { ids, items } = await walk(7);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(stored);
      for (const item of items) expectShape(item, resource);
    });

    it('keeps its place when records are added during the walk', async () => {
      const first = await list('?limit=10');
      const firstIds: string[] = first.body.data.map((item: Item) => item.id);
      const lastOfFirst = firstIds.at(-1)!;

      // Newer than everything (copies of stored rows), and more spread over the past year.
      const members = [`'id', gen_random_uuid()`, `'created_at', clock_timestamp()`, resource.copy].filter(Boolean).join(', ');
      const newest: { id: string }[] = await db.query(
        `INSERT INTO ${table}
           SELECT (jsonb_populate_record(NULL::${table}, to_jsonb(t) || jsonb_build_object(${members}))).*
           FROM ${table} t WHERE tenant_id = $1 ORDER BY created_at DESC LIMIT 3
         RETURNING id`,
        [company.tenant.id],
      );
      const added = await seedRecords(api.app, company.tenant.id, 6, resource.seed);

      const rest = await walk(10, first.body.next_cursor);
      expect([...firstIds, ...rest.ids]).toEqual([...firstIds, ...(await storedOrder(table, company.tenant.id, lastOfFirst))]);
      expect(rest.ids).toEqual(expect.not.arrayContaining(newest.map((row) => row.id)));
      expect(rest.ids).toEqual(expect.not.arrayContaining(firstIds));
      expect(rest.ids.filter((id) => added[resource.ids].includes(id)).length).toBeGreaterThan(0);
    });

    it(`answers 422 errors.integrations.${path}.invalid_cursor for an unreadable, tampered or foreign cursor`, async () => {
      const valid: string = (await list('?limit=2')).body.next_cursor;
      const tampered = valid.slice(0, -2) + (valid.endsWith('AA') ? 'BB' : 'AA');
      const foreignKey = (await company.newKey([resource.other.scope])).auth;
      const foreign: string = (await api.http.get(`/v1/${resource.other.path}?limit=2`).set('Authorization', foreignKey)).body.next_cursor;
      expect(typeof foreign).toBe('string');
      for (const cursor of ['garbage', tampered, foreign, 'a.b.c']) {
        const res = await list(`?cursor=${encodeURIComponent(cursor)}`);
        expect(res.status).toBe(422);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.body.detail_key).toBe(`errors.integrations.${path}.invalid_cursor`);
        expect(res.body.type).toBe('https://api.test.local/errors/validation');
      }
    });

    it('retrieves an item equal to its list entry and to the stored row', async () => {
      const [entry] = (await list('?limit=1')).body.data as Item[];
      const res = await api.http.get(`/v1/${path}/${entry.id}`).set('Authorization', auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(entry);
      expectShape(res.body, resource);

      // Each member named like a column shows that column's value in its API form.
      const [{ row }] = await db.query(`SELECT to_jsonb(t) AS row FROM ${table} t WHERE id = $1`, [entry.id]);
      for (const [name, field] of Object.entries(resource.fields)) {
        if (!(name in row)) continue;
        const kind = typeof field === 'object' && !Array.isArray(field) ? (field as { nullable: Kind }).nullable : field;
        const stored = row[name];
        if (stored === null) expect(res.body[name]).toBeNull();
        else if (kind === 'timestamp') expect(Date.parse(res.body[name])).toBe(Date.parse(stored));
        else if (kind === 'number' || kind === 'integer') expect(res.body[name]).toBe(Number(stored));
        else expect(res.body[name]).toBe(stored);
      }
    });

    it(`answers 404 errors.integrations.${path}.not_found for an unknown id, 422 for a malformed one`, async () => {
      const missing = await api.http.get(`/v1/${path}/${randomUUID()}`).set('Authorization', auth);
      expect(missing.status).toBe(404);
      expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(missing.body.detail_key).toBe(`errors.integrations.${path}.not_found`);
      expect(missing.body.code).toBe('not_found');
      expect(missing.body.type).toBe('https://api.test.local/errors/not-found');

      const malformed = await api.http.get(`/v1/${path}/not-a-uuid`).set('Authorization', auth);
      expect(malformed.status).toBe(422);
      expect(malformed.body.detail_key).toBe('errors.common.validation.invalid_input');
    });

    it("never shows another company's records", async () => {
      const theirs = otherIds[resource.ids];
      expect(theirs.length).toBeGreaterThan(0);
      for (const id of theirs.slice(0, 3)) {
        const res = await api.http.get(`/v1/${path}/${id}`).set('Authorization', auth);
        expect(res.status).toBe(404);
        expect(res.body.detail_key).toBe(`errors.integrations.${path}.not_found`);
      }
      const theirKey = (await other.newKey([resource.scope])).auth;
      const res = await list('?limit=100', theirKey);
      expect(res.status).toBe(200);
      expect(res.body.data.map((item: Item) => item.id).sort()).toEqual([...theirs].sort());
    });

    it(`answers 403 missing_scope ${resource.scope} to a key holding another resource's scope`, async () => {
      const key = (await company.newKey([resource.other.scope, Scope.WebhooksManage])).auth;
      const [entry] = (await list('?limit=1')).body.data as Item[];
      for (const res of [await list('', key), await api.http.get(`/v1/${path}/${entry.id}`).set('Authorization', key)]) {
        expect(res.status).toBe(403);
        expect(res.body.detail_key).toBe('errors.integrations.missing_scope');
        expect(res.body.missing_scope).toBe(resource.scope);
      }
    });

    it('documents both operations and the item schema in OpenAPI', () => {
      const listOp = openapi.paths[`/v1/${path}`].get!;
      const getOp = openapi.paths[`/v1/${path}/{id}`].get!;
      const ref = `#/components/schemas/${resource.schema}`;
      for (const op of [listOp, getOp]) expect((op as unknown as Record<string, unknown>)['x-required-scopes']).toEqual([resource.scope]);
      expect(jsonSchema(listOp.responses['200']).properties?.data.items?.$ref).toBe(ref);
      expect(jsonSchema(getOp.responses['200']).$ref).toBe(ref);
      expect(Object.keys(getOp.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404', '422']));

      const schema = openapi.components!.schemas![resource.schema] as { properties: Record<string, { type?: string | string[]; enum?: unknown[] }>; required: string[] };
      expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(resource.fields).sort());
      expect([...schema.required].sort()).toEqual(Object.keys(resource.fields).sort());
      for (const [name, field] of Object.entries(resource.fields)) {
        const property = schema.properties[name];
        const types = [property.type ?? []].flat();
        const isNullable = typeof field === 'object' && !Array.isArray(field);
        expect({ name, nullable: types.includes('null') || (property.enum ?? []).includes(null) }).toEqual({ name, nullable: isNullable });
        const kind = isNullable ? (field as { nullable: Kind }).nullable : (field as Kind);
        if (Array.isArray(kind)) expect(property.enum).toEqual(kind);
        if (kind === 'integer') expect(types).toContain('integer');
        if (kind === 'number') expect(types).toContain('number');
      }
    });
  });
});
