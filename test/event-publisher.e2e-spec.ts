import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EventCatalog, EVENT_TYPES, type EventData, type EventType } from '../src/platform/catalog/event-types.js';
import { EventDataCheck } from '../src/platform/events/event-data-check.js';
import { EventDataMismatch, EventPublisher } from '../src/platform/events/event-publisher.service.js';
import { TenantData } from '../src/platform/tenancy/tenant-data.js';
import { startApi, type TestApi } from './support/api.js';
import { createTenantSession } from './support/tenant-session.js';

/** Every event's data is typed by the catalogue and checked against its published schema before it is written. */
describe('EventPublisher: typed, checked event data', () => {
  let api: TestApi;
  let tenantId: string;
  let check: EventDataCheck;

  const events = async () => Number((await api.app.get(DataSource).query('SELECT count(*) AS n FROM events WHERE tenant_id = $1', [tenantId]))[0].n);
  const publish = <T extends Parameters<EventPublisher['publish']>[1]>(type: T, data: EventData<T>) =>
    api.app.get(TenantData).transaction(tenantId, (scope) => api.app.get(EventPublisher).publish(scope, type, data));

  beforeAll(async () => {
    api = await startApi();
    tenantId = (await createTenantSession(api.app)).tenant.id;
    check = api.app.get(EventDataCheck);
  });
  afterAll(() => api.close());

  it("publishes data that matches its type's schema", async () => {
    const invoice = { ...(await check.example('fin.invoice.created')), id: randomUUID() };
    const envelope = await publish('fin.invoice.created', invoice);
    expect(envelope).toMatchObject({ type: 'fin.invoice.created', data: invoice });
    const [row] = await api.app.get(DataSource).query('SELECT envelope FROM events WHERE id = $1', [envelope.id]);
    expect(row.envelope.data).toEqual(invoice);
  });

  it.each([
    ['a required member missing', 'fin.invoice.created', (valid: Record<string, unknown>) => ({ ...valid, customer_id: undefined }), "data must have required property 'customer_id'"],
    ['a member of the wrong type', 'hr.employee.created', (valid: Record<string, unknown>) => ({ ...valid, work_email: 42 }), 'data/work_email must be string'],
    ['a value outside its enum', 'support.ticket.updated', (valid: Record<string, unknown>) => ({ ...valid, status: 'sleeping' }), 'data/status must be equal to one of the allowed values'],
    ['a malformed nested member', 'esign.envelope.sent', (valid: Record<string, unknown>) => ({ ...valid, signers: [{ id: 'not-a-uuid' }] }), "data/signers/0 must have required property 'name'"],
    ['a malformed timestamp', 'compliance.audit.completed', (valid: Record<string, unknown>) => ({ ...valid, completed_at: 'yesterday' }), 'data/completed_at must match format "date-time"'],
  ] as const)('refuses data with %s, naming the fault, and writes nothing', async (_, type, spoil, fault) => {
    const before = await events();
    const data = spoil((await check.example(type)) as unknown as Record<string, unknown>) as unknown as EventData<typeof type>;
    const publishing = publish(type, data);
    await expect(publishing).rejects.toBeInstanceOf(EventDataMismatch);
    await expect(publishing).rejects.toThrow(`event data does not match the schema of ${type}: ${fault}`);
    expect(await events()).toBe(before);
  });

  it('has, for every catalogue type, example data that its schema accepts (the data test events send)', async () => {
    for (const type of EVENT_TYPES) expect([type, await check.fault(type, await check.example(type))]).toEqual([type, null]);
  });

  it('gives each type of a readable resource example data in the state the type names, its tied members with it', async () => {
    const example = async (type: EventType) => (await check.example(type)) as unknown as Record<string, unknown>;
    // A resource's own example is the state its records start in: nothing a later state sets.
    expect(await example('fin.invoice.created')).toMatchObject({ status: 'draft', number: null, issued_at: null, voided_at: null, paid_minor: 0 });
    expect(await example('hr.employee.created')).toMatchObject({ employment_status: 'active', end_date: null });
    expect(await example('hr.leave_request.created')).toMatchObject({ status: 'pending', decided_at: null });
    expect(await example('hr.timesheet.created')).toMatchObject({ status: 'draft', submitted_at: null, approved_at: null });
    expect(await example('support.ticket.created')).toMatchObject({ status: 'new', solved_at: null });
    expect(await example('fm.work_order.created')).toMatchObject({ status: 'open', completed_at: null });

    const paid = await example('fin.invoice.paid');
    expect(paid).toMatchObject({ status: 'paid', number: expect.stringMatching(/^INV-2026-\d{6}$/), issued_at: expect.any(String), balance_minor: 0, voided_at: null });
    expect(paid.paid_minor).toBe(paid.total_minor);
    const voided = await example('fin.invoice.voided');
    expect(voided).toMatchObject({ status: 'void', number: expect.any(String), issued_at: expect.any(String), voided_at: expect.any(String), paid_minor: 0, balance_minor: 0 });
    expect(await example('fm.work_order.completed')).toMatchObject({ status: 'completed', completed_at: expect.any(String) });
    expect(await example('hr.employee.terminated')).toMatchObject({ employment_status: 'terminated', end_date: expect.any(String) });
    expect(await example('hr.leave_request.approved')).toMatchObject({ status: 'approved', decided_at: expect.any(String) });
    expect(await example('hr.leave_request.rejected')).toMatchObject({ status: 'rejected', decided_at: expect.any(String) });
    expect(await example('hr.leave_request.cancelled')).toMatchObject({ status: 'cancelled' });
    expect(await example('hr.timesheet.submitted')).toMatchObject({ status: 'submitted', submitted_at: expect.any(String), approved_at: null });
    expect(await example('hr.timesheet.approved')).toMatchObject({ status: 'approved', submitted_at: expect.any(String), approved_at: expect.any(String) });
    expect(await example('hr.timesheet.rejected')).toMatchObject({ status: 'rejected', submitted_at: expect.any(String), approved_at: null });
    expect(await example('support.ticket.solved')).toMatchObject({ status: 'solved', solved_at: expect.any(String) });
    expect(await example('support.ticket.closed')).toMatchObject({ status: 'closed', solved_at: expect.any(String) });
  });

  it('gives each type without a read endpoint example data in the state the type names, its tied members with it', async () => {
    const example = async (type: EventType) => (await check.example(type)) as unknown as Record<string, unknown>;
    const time = expect.stringMatching(/^2026-\d\d-\d\dT/);
    // The first type of each record shows it as it starts: nothing a later state sets.
    expect(await example('compliance.whistleblowing_report.received')).toMatchObject({ status: 'received', acknowledged_at: null, closed_at: null, outcome: null });
    expect(await example('compliance.pay_transparency_request.received')).toMatchObject({ status: 'received', answered_at: null });
    expect(await example('compliance.training.assigned')).toMatchObject({ status: 'assigned', completed_at: null });
    expect(await example('compliance.incident.reported')).toMatchObject({ status: 'reported', resolved_at: null });
    expect(await example('compliance.audit.scheduled')).toMatchObject({ status: 'scheduled', completed_at: null, findings_count: null });
    expect(await example('compliance.data_subject_request.received')).toMatchObject({ status: 'received', completed_at: null });
    expect(await example('einvoice.document.created')).toMatchObject({ status: 'created', validation_errors: [] });
    expect(await example('datev.export.requested')).toMatchObject({ status: 'requested', record_count: null, file_size_bytes: null, failure_reason: null, completed_at: null });
    expect(await example('dashcam.video.requested')).toMatchObject({ status: 'requested', size_bytes: null, uploaded_at: null, deleted_at: null });
    expect(await example('esign.envelope.created')).toMatchObject({ status: 'draft', sent_at: null, completed_at: null, signers: [{ status: 'pending', signed_at: null }] });

    expect(await example('identity.user.deactivated')).toMatchObject({ status: 'deactivated' });
    expect(await example('compliance.whistleblowing_report.acknowledged')).toMatchObject({ status: 'acknowledged', acknowledged_at: time, closed_at: null, outcome: null });
    expect(await example('compliance.whistleblowing_report.closed')).toMatchObject({ status: 'closed', acknowledged_at: time, closed_at: time, outcome: 'substantiated' });
    expect(await example('compliance.pay_transparency_request.answered')).toMatchObject({ status: 'answered', answered_at: time });
    expect(await example('compliance.training.completed')).toMatchObject({ status: 'completed', completed_at: time });
    expect(await example('compliance.incident.resolved')).toMatchObject({ status: 'resolved', resolved_at: time });
    expect(await example('compliance.audit.completed')).toMatchObject({ status: 'completed', completed_at: time, findings_count: expect.any(Number) });
    expect(await example('compliance.data_subject_request.completed')).toMatchObject({ status: 'completed', completed_at: time });
    expect(await example('einvoice.document.validated')).toMatchObject({ status: 'valid', validation_errors: [] });
    expect(await example('einvoice.document.validation_failed')).toMatchObject({ status: 'invalid', validation_errors: [{ code: expect.any(String) }] });
    expect(await example('einvoice.document.received')).toMatchObject({ status: 'received', direction: 'inbound', invoice_id: null });
    expect(await example('datev.export.started')).toMatchObject({ status: 'running', completed_at: null });
    expect(await example('datev.export.completed')).toMatchObject({ status: 'completed', record_count: expect.any(Number), file_size_bytes: expect.any(Number), completed_at: time });
    expect(await example('datev.export.failed')).toMatchObject({ status: 'failed', failure_reason: expect.any(String), completed_at: null });
    expect(await example('tachograph.driver_card.downloaded')).toMatchObject({ source: 'driver_card', status: 'downloaded', driver_id: expect.any(String), vehicle_id: null });
    expect(await example('tachograph.vehicle_unit.downloaded')).toMatchObject({ source: 'vehicle_unit', status: 'downloaded', driver_id: null, vehicle_id: expect.any(String) });
    expect(await example('tachograph.file.processed')).toMatchObject({ status: 'processed', activity_start_at: time, activity_end_at: time, failure_reason: null });
    expect(await example('tachograph.file.failed')).toMatchObject({ status: 'failed', failure_reason: expect.any(String), activity_start_at: null });
    expect(await example('tachograph.company_card.expiring')).toMatchObject({ type: 'company', holder_driver_id: null });
    expect(await example('dashcam.collision.detected')).toMatchObject({ type: 'collision' });
    expect(await example('dashcam.video.deleted')).toMatchObject({ status: 'deleted', uploaded_at: time, deleted_at: time });
    const signed = await example('esign.envelope.signed');
    expect(signed).toMatchObject({ status: 'sent', sent_at: time, completed_at: null, signers: [{ status: 'signed', signed_at: time }, { status: 'pending', signed_at: null }] });
    expect(await example('esign.envelope.completed')).toMatchObject({ status: 'completed', completed_at: time, signers: [{ status: 'signed' }, { status: 'signed' }] });
    expect(await example('esign.envelope.declined')).toMatchObject({ status: 'declined', signers: [{ status: 'declined', signed_at: null }] });
  });

  it('names, in every example whose record has a status, the status its type ends in where that is one', async () => {
    const { components } = (await api.http.get('/v1/openapi.json').expect(200)).body;
    let named = 0;
    for (const type of EVENT_TYPES) {
      const component = EventCatalog[type].data;
      const statuses: string[] = components.schemas[component].properties.status?.enum ?? [];
      const action = type.split('.').at(-1)!;
      if (!statuses.includes(action)) continue;
      named += 1;
      expect([type, ((await check.example(type)) as unknown as Record<string, unknown>).status]).toEqual([type, action]);
    }
    expect(named).toBeGreaterThan(30);
  });

  it('dates every example after its last change, and gives a record inside a record an id of its own', async () => {
    for (const type of EVENT_TYPES) {
      const data = (await check.example(type)) as unknown as Record<string, unknown>;
      const times = (JSON.stringify(data).match(/\d{4}-\d\d-\d\dT[\d:.]+Z/g) ?? []).filter((t) => t !== data.expires_at);
      expect([type, [...times].sort().at(-1)]).toEqual([type, data.updated_at]);
    }
    // A record shown as it starts, though its type sets members (its signers, its kind of event), was never changed since.
    for (const type of ['esign.envelope.created', 'dashcam.collision.detected', 'tachograph.driver_card.downloaded'] as const) {
      const data = (await check.example(type)) as unknown as Record<string, unknown>;
      expect([type, data.updated_at]).toEqual([type, data.created_at]);
    }
    const invoice = await check.example('fin.invoice.created');
    expect(invoice.lines[0].id).not.toBe(invoice.id);
    const envelope = await check.example('esign.envelope.signed');
    expect(new Set([envelope.id, ...envelope.signers.map((one) => one.id)]).size).toBe(3);
  });
});

// Type-level checks, enforced by `npm run typecheck`: publish takes the data its type's catalogue entry describes.
export async function mistypedPublishes(publisher: EventPublisher, scope: Parameters<EventPublisher['publish']>[0], check: EventDataCheck): Promise<void> {
  const invoice = await check.example('fin.invoice.created');
  // @ts-expect-error fin.invoice.created carries an invoice, not a vehicle
  await publisher.publish(scope, 'fin.invoice.created', await check.example('fm.vehicle.created'));
  // @ts-expect-error the data of a type without a read endpoint follows its schema: a DATEV export has no `total_minor`
  await publisher.publish(scope, 'datev.export.completed', { total_minor: invoice.total_minor });
  // @ts-expect-error not a catalogue type
  await publisher.publish(scope, 'fin.invoice.exploded', invoice);
}
