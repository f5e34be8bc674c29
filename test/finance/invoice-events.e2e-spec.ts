import { Scope } from '../../src/platform/catalog/scopes.js';
import type { TestApi } from '../support/api.js';
import { type FinanceFixture, outboxEvents, startFinanceApi } from '../support/finance.js';
import type { TenantSession } from '../support/tenant-session.js';

type Envelope = { id: string; type: string; created_at: string; data: Record<string, unknown> };

/**
 * The outbox through an invoice's life: each change that has an event writes exactly one row,
 * in the same transaction, whose envelope carries the invoice as the API shows it at that moment.
 */
describe('invoice events in the outbox (e2e)', () => {
  let api: TestApi;
  let session: TenantSession;
  let fin: FinanceFixture;

  beforeAll(async () => {
    ({ api, session, fin } = await startFinanceApi({ scopes: [Scope.FinInvoicesWrite] }));
  });
  afterAll(() => api.close());

  const envelopesOf = async (id: string): Promise<Envelope[]> =>
    (await outboxEvents(api.app, session.tenant.id)).map((e) => e.envelope as unknown as Envelope).filter((e) => e.data.id === id);
  const read = async (id: string) => (await api.http.get(`/v1/invoices/${id}`).set('Authorization', session.auth)).body;

  it('create, update, issue, pay in part, pay in full: created, updated, paid, one each, with the invoice of that moment', async () => {
    const created = await api.http.post('/v1/invoices').set('Authorization', session.auth).send(fin.invoiceBody());
    const updated = await api.http.patch(`/v1/invoices/${created.body.id}`).set('Authorization', session.auth).send({ notes: 'updated' });
    await fin.issue(created.body.id);
    await fin.pay(created.body.id, 1);
    await fin.pay(created.body.id, created.body.total_minor - 1);

    const envelopes = await envelopesOf(created.body.id);
    expect(envelopes.map((e) => e.type)).toEqual(['fin.invoice.created', 'fin.invoice.updated', 'fin.invoice.paid']);
    expect(envelopes[0].data).toEqual(created.body);
    expect(envelopes[1].data).toEqual(updated.body);
    expect(envelopes[2].data).toEqual(await read(created.body.id));
    for (const envelope of envelopes) {
      expect(Object.keys(envelope).sort()).toEqual(['created_at', 'data', 'id', 'type']);
      expect(envelope.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(Date.parse(envelope.created_at)).not.toBeNaN();
    }
    expect(new Set(envelopes.map((e) => e.id)).size).toBe(3);
  });

  it('void: exactly one fin.invoice.voided; refusals write nothing', async () => {
    const created = await api.http.post('/v1/invoices').set('Authorization', session.auth).send(fin.invoiceBody());
    await api.http.post(`/v1/invoices/${created.body.id}/void`).set('Authorization', session.auth);
    await fin.issue(created.body.id);
    const payment = await fin.pay(created.body.id, 5);
    await api.http.post(`/v1/invoices/${created.body.id}/void`).set('Authorization', session.auth);
    await fin.refund(payment.id as string);
    const voided = await api.http.post(`/v1/invoices/${created.body.id}/void`).set('Authorization', session.auth);
    await api.http.post(`/v1/invoices/${created.body.id}/void`).set('Authorization', session.auth);
    await api.http.patch(`/v1/invoices/${created.body.id}`).set('Authorization', session.auth).send({ notes: 'late' });

    const envelopes = await envelopesOf(created.body.id);
    expect(envelopes.map((e) => e.type)).toEqual(['fin.invoice.created', 'fin.invoice.voided']);
    expect(voided.status).toBe(200);
    expect(envelopes[1].data).toEqual(voided.body);
  });
});
