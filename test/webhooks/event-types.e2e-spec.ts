import { Scope } from '../../src/platform/catalog/scopes.js';
import { EVENT_TYPES, EventCatalog } from '../../src/platform/catalog/event-types.js';
import { startApi, type TestApi } from '../support/api.js';
import { rawRequest } from '../support/raw-http.js';
import { createTenantSession } from '../support/tenant-session.js';

type Json = Record<string, any>;

/** The complete catalogue: GET /v1/event_types and the OpenAPI `webhooks` map. */
describe('event catalogue (e2e)', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('lists every type to any valid key, with description, scope, personal-data flag and a self-contained schema', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.FmWorkOrdersRead] });
    const res = await api.http.get('/v1/event_types').set('Authorization', session.auth);
    expect(res.status).toBe(200);
    const data = res.body.data as Json[];
    expect(Object.keys(res.body)).toEqual(['data', 'next_cursor', 'has_more']);
    expect(res.body).toMatchObject({ next_cursor: null, has_more: false });
    expect(data.map((item) => item.type)).toEqual(EVENT_TYPES);
    expect(data.filter((item) => item.scope === 'int:*')).toHaveLength(64);
    for (const item of data) {
      expect(Object.keys(item)).toEqual(['type', 'description', 'scope', 'personal_data', 'schema']);
      expect(item.description.length).toBeGreaterThan(10);
      expect(typeof item.personal_data).toBe('boolean');
      expect(item.schema).toMatchObject({ type: 'object', properties: expect.objectContaining({ id: expect.any(Object) }) });
      expect(JSON.stringify(item.schema)).not.toContain('$ref');
    }
    const invoice = data.find((item) => item.type === 'fin.invoice.created')!;
    expect(invoice).toMatchObject({ scope: 'int:fin.invoices:read', personal_data: false });
    expect(Object.keys(invoice.schema.properties)).toEqual(expect.arrayContaining(['number', 'total_minor', 'lines']));
    expect(data.find((item) => item.type === 'compliance.whistleblowing_report.received')).toMatchObject({ scope: 'int:*', personal_data: true });
    expect(data.find((item) => item.type === 'datev.export.completed')).toMatchObject({ scope: 'int:*', personal_data: false });
    expect((await api.http.get('/v1/event_types')).status).toBe(401);
  });

  it('covers compliance (whistleblowing, pay transparency), e-invoicing, DATEV, tachograph, dashcam and e-signature among the 64', () => {
    const unlisted = EVENT_TYPES.filter((type) => EventCatalog[type].scope === Scope.All);
    for (const prefix of ['compliance.whistleblowing_report.', 'compliance.pay_transparency_', 'einvoice.', 'datev.', 'tachograph.', 'dashcam.', 'esign.']) {
      expect(unlisted.some((type) => type.startsWith(prefix))).toBe(true);
    }
    for (const type of unlisted.filter((name) => /whistleblowing|pay_transparency/.test(name))) expect(EventCatalog[type].personalData).toBe(true);
  });

  it('publishes the envelope and every type under the OpenAPI top-level webhooks map, with resolvable schemas', async () => {
    const document = JSON.parse((await rawRequest(api.app, 'GET', '/v1/openapi.json')).body.toString('utf8')) as Json;
    expect(Object.keys(document.webhooks)).toEqual(EVENT_TYPES);
    expect(document.components.schemas.WebhookEvent.required).toEqual(['id', 'type', 'created_at', 'api_version', 'data']);
    for (const type of EVENT_TYPES) {
      const operation = document.webhooks[type].post;
      expect(operation['x-personal-data']).toBe(EventCatalog[type].personalData);
      const [envelope, specific] = operation.requestBody.content['application/json'].schema.allOf;
      expect(envelope).toEqual({ $ref: '#/components/schemas/WebhookEvent' });
      expect(specific.properties.type).toEqual({ const: type });
      const ref = specific.properties.data.$ref as string;
      expect(document.components.schemas[ref.replace('#/components/schemas/', '')]).toBeDefined();
    }
  });
});
