import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { RESOURCE_DTOS } from '../src/app/features.js';
import { EventDataCheck } from '../src/platform/events/event-data-check.js';
import { runCli } from './support/cli.js';

/** `event:emit` and `mcp-token:create` (operations.md), run as `node dist/cli.js` runs them. */
describe('admin CLI: event:emit and mcp-token:create (e2e)', () => {
  let db: pg.Client;
  let tenantId: string;
  let userId: string;
  /** Data that matches a type's schema: the catalogue's own examples. */
  const schemas = new EventDataCheck(RESOURCE_DTOS);

  beforeAll(async () => {
    db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    tenantId = (await runCli('tenant:create', '--name', 'CLI Events GmbH')).json.id as string;
    userId = (await runCli('user:create', '--tenant', tenantId, '--email', 'ops@cli-events.example', '--permissions', 'fm.vehicles:read')).json.id as string;
  });
  afterAll(() => db.end());

  const eventCount = async () => Number((await db.query('SELECT count(*) FROM events WHERE tenant_id = $1', [tenantId])).rows[0].count);

  /** A failed command: exit 1, a message on stderr, nothing on stdout. */
  const expectFailure = (run: Awaited<ReturnType<typeof runCli>>, message: RegExp) => {
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  };

  describe('event:emit', () => {
    it('publishes a catalogue event through the outbox and prints {id}, the event id', async () => {
      const data = { ...(await schemas.example('fm.vehicle.updated')), id: randomUUID(), registration: 'B-FM 4211', assigned_driver_id: null, odometer_km: 12_345 };
      const run = await runCli('event:emit', '--tenant', tenantId, '--type', 'fm.vehicle.updated', '--data', JSON.stringify(data));
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(Object.keys(run.json)).toEqual(['id']);
      expect(run.json.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

      // dispatched_at is not asserted: a worker of another test file may relay the event at any moment.
      const { rows } = await db.query('SELECT tenant_id, type, envelope FROM events WHERE id = $1', [run.json.id]);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ tenant_id: tenantId, type: 'fm.vehicle.updated' });
      expect(rows[0].envelope).toMatchObject({ id: run.json.id, type: 'fm.vehicle.updated', data });
      expect(Date.parse(rows[0].envelope.created_at)).not.toBeNaN();
    });

    it.each(['hr.leave_request.approved', 'files.document.created', 'fin.invoice.paid'] as const)('accepts %s from the catalogue', async (type) => {
      const run = await runCli('event:emit', '--tenant', tenantId, '--type', type, '--data', JSON.stringify(await schemas.example(type)));
      expect(run.code).toBe(0);
      expect((await db.query('SELECT type FROM events WHERE id = $1', [run.json.id])).rows).toEqual([{ type }]);
    });

    it.each([
      ['an unknown type', ['--type', 'fm.vehicle.exploded', '--data', '{}'], /unknown event type: fm\.vehicle\.exploded/],
      ['a wildcard', ['--type', 'fm.vehicle.*', '--data', '{}'], /unknown event type/],
      ['data that is not JSON', ['--type', 'fm.vehicle.created', '--data', '{id: 1'], /not JSON/],
      ['JSON that is not an object', ['--type', 'fm.vehicle.created', '--data', '[1,2]'], /not a JSON object/],
      // Published as given, so not as another number (null, and 12345678901234568000000, before).
      ['a number past a double', ['--type', 'fm.vehicle.created', '--data', '{"n":1e400}'], /holds a number that cannot be kept exactly \(Infinity\): write it as a string/],
      ['an integer past 2^53', ['--type', 'fm.vehicle.created', '--data', '{"a":{"n":12345678901234567890123}}'], /cannot be kept exactly/],
      ['missing data', ['--type', 'fm.vehicle.created'], /--data/],
      // "Maximum call stack size exceeded" before: the exact-number check ran first, and recursively.
      ['data nested 10,000 deep', ['--type', 'fm.vehicle.created', '--data', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`], /is invalid\. The request body is nested deeper than 64 levels\.$/m],
    ])('fails with a message and writes nothing for %s', async (_, flags, message) => {
      const before = await eventCount();
      expectFailure(await runCli('event:emit', '--tenant', tenantId, ...flags), message);
      expect(await eventCount()).toBe(before);
    });

    it.each([
      ['a required member missing', { id: '5e0c2f46-8a3e-4f3b-9a59-1d2b1c0e7a11' }],
      ['any object', { hello: 'world', n: 1 }],
      ['an empty object', {}],
    ])('publishes data as given, its type\'s schema or not (%s): the specification shows no payloads', async (_, data) => {
      const run = await runCli('event:emit', '--tenant', tenantId, '--type', 'fm.vehicle.created', '--data', JSON.stringify(data));
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      const { rows } = await db.query('SELECT envelope FROM events WHERE id = $1', [run.json.id]);
      expect(rows[0].envelope.data).toEqual(data);
    });

    it.each([
      // Which the outbox's jsonb cannot hold: PostgreSQL's own error before.
      ['an unpaired surrogate', async () => ({ ...(await schemas.example('fm.vehicle.created')), registration: '\ud800' }), /registration contains an unpaired UTF-16 surrogate/],
      ['U+0000', async () => ({ ...(await schemas.example('fm.vehicle.created')), registration: 'B-\u0000' }), /registration contains the character U\+0000/],
    ])('refuses data the outbox cannot store (%s): exit 1, the fault named, nothing written', async (_, data, message) => {
      const before = await eventCount();
      expectFailure(await runCli('event:emit', '--tenant', tenantId, '--type', 'fm.vehicle.created', '--data', JSON.stringify(await data())), message);
      expect(await eventCount()).toBe(before);
    });

    it('fails for an unknown or malformed company id', async () => {
      expectFailure(await runCli('event:emit', '--tenant', randomUUID(), '--type', 'fm.vehicle.created', '--data', '{}'), /not found/);
      expectFailure(await runCli('event:emit', '--tenant', 'acme', '--type', 'fm.vehicle.created', '--data', '{}'), /not an id/);
    });
  });

  describe('mcp-token:create', () => {
    it('issues an oht_ token for every tool and stores only its prefix and SHA-256', async () => {
      const run = await runCli('mcp-token:create', '--tenant', tenantId, '--user', userId, '--tools', '*');
      expect(run.code).toBe(0);
      expect(Object.keys(run.json).sort()).toEqual(['id', 'token']);
      const [, prefix, secret] = /^oht_([a-z0-9]{12})_([A-Za-z0-9]{43})$/.exec(run.json.token as string) ?? [];
      expect(secret).toBeDefined();

      const { rows } = await db.query('SELECT *, to_jsonb(t)::text AS whole FROM mcp_tokens t WHERE id = $1', [run.json.id]);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ tenant_id: tenantId, user_id: userId, prefix, tools: ['*'], revoked_at: null, last_used_at: null });
      expect(rows[0].secret_hash).toEqual(createHash('sha256').update(secret).digest());
      expect(rows[0].whole).not.toContain(secret);
      expect(rows[0].created_at).toBeInstanceOf(Date);
    });

    it('stores the named tools, once each', async () => {
      const run = await runCli('mcp-token:create', '--tenant', tenantId, '--user', userId, '--tools', 'list_invoices,get_vehicles,list_invoices,summarise_hr');
      expect(run.code).toBe(0);
      expect((await db.query('SELECT tools FROM mcp_tokens WHERE id = $1', [run.json.id])).rows[0].tools).toEqual(['list_invoices', 'get_vehicles', 'summarise_hr']);
    });

    it('never issues the same token twice', async () => {
      const first = await runCli('mcp-token:create', '--tenant', tenantId, '--user', userId, '--tools', '*');
      const second = await runCli('mcp-token:create', '--tenant', tenantId, '--user', userId, '--tools', '*');
      expect(first.json.token).not.toBe(second.json.token);
      expect(first.json.id).not.toBe(second.json.id);
    });

    it('fails for a person of another company, an inactive company or a bad tool list', async () => {
      const otherTenant = (await runCli('tenant:create', '--name', 'Other Co')).json.id as string;
      const stranger = (await runCli('user:create', '--tenant', otherTenant, '--email', 'x@other.example')).json.id as string;
      const count = async () => Number((await db.query('SELECT count(*) FROM mcp_tokens WHERE tenant_id IN ($1, $2)', [tenantId, otherTenant])).rows[0].count);
      const before = await count();

      expectFailure(await runCli('mcp-token:create', '--tenant', tenantId, '--user', stranger, '--tools', '*'), /not found in tenant/);
      expectFailure(await runCli('mcp-token:create', '--tenant', tenantId, '--user', userId, '--tools', '*,invoices.list'), /cannot be combined/);
      expectFailure(await runCli('mcp-token:create', '--tenant', tenantId, '--user', userId, '--tools', ''), /at least one tool/);
      expectFailure(await runCli('mcp-token:create', '--tenant', tenantId, '--user', userId, '--tools', 'List Invoices'), /unknown tools: List Invoices;/);
      expectFailure(await runCli('mcp-token:create', '--tenant', tenantId, '--user', userId, '--tools', 'list_invoice,list_records'), /unknown tools: list_invoice; the tools are list_records, get_record, search_records, recent_changes, summarise, list_invoices, get_invoices, /);
      expectFailure(await runCli('mcp-token:create', '--tenant', tenantId, '--user', userId), /--tools/);
      await runCli('tenant:deactivate', '--tenant', otherTenant);
      expectFailure(await runCli('mcp-token:create', '--tenant', otherTenant, '--user', stranger, '--tools', '*'), /not active/);
      expect(await count()).toBe(before);
    });
  });
});
