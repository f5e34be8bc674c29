import { DataSource } from 'typeorm';
import type { AuthContext } from '../../src/platform/auth/auth-context.js';
import { Scope } from '../../src/platform/catalog/scopes.js';
import { DomainException } from '../../src/platform/errors/domain.exception.js';
import { WebhookSecretBox } from '../../src/webhooks/secrets/webhook-secret-box.js';
import { WebhookUrlChecker } from '../../src/webhooks/url-safety/webhook-url-checker.js';
import { WebhookEndpoint } from '../../src/webhooks/webhook-endpoint.entity.js';
import { WebhookEndpointsService } from '../../src/webhooks/webhook-endpoints.service.js';
import { startApi, type TestApi } from '../support/api.js';
import { createTenantSession } from '../support/tenant-session.js';
import { stubDns } from '../support/webhooks.js';

/** The pieces the delivery side builds on: ownership lookup, secret box and URL checker in the running app. */
describe('webhook endpoint contract (e2e)', () => {
  let api: TestApi;
  let db: DataSource;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
  });
  afterAll(() => api.close());

  const auth = (tenantId: string, apiKeyId: string, scopes: string[]): AuthContext => ({ tenantId, tenantSlug: 'x', apiKeyId, scopes, userId: null });

  it('findOwned: the owning key and int:* keys of the company find it; other keys and companies get 404', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.WebhooksManage] });
    const other = await session.newKey([Scope.WebhooksManage]);
    const all = await session.newKey([Scope.All]);
    const stranger = await createTenantSession(api.app, { scopes: [Scope.All] });
    const box = api.app.get(WebhookSecretBox);
    const endpoint = await db.getRepository(WebhookEndpoint).save({
      tenantId: session.tenant.id,
      apiKeyId: session.keyId,
      name: 'ERP',
      url: 'https://hooks.example.com/',
      eventTypes: ['fin.invoice.created'],
      status: 'active',
      piiEnabled: false,
      secretCiphertext: box.seal(box.generateSecret()),
    });
    const service = api.app.get(WebhookEndpointsService);

    await expect(service.findOwned(auth(session.tenant.id, session.keyId, [Scope.WebhooksManage]), endpoint.id)).resolves.toMatchObject({ id: endpoint.id });
    await expect(service.findOwned(auth(session.tenant.id, all.id, [Scope.All]), endpoint.id)).resolves.toMatchObject({ id: endpoint.id });
    for (const caller of [auth(session.tenant.id, other.id, [Scope.WebhooksManage]), auth(stranger.tenant.id, stranger.keyId, [Scope.All])]) {
      await expect(service.findOwned(caller, endpoint.id)).rejects.toMatchObject({ errorName: 'WebhookEndpointNotFound' });
    }
    const stored = await db.getRepository(WebhookEndpoint).findOneByOrFail({ id: endpoint.id });
    expect(box.signingSecrets(stored, new Date())).toHaveLength(1);
    expect(box.signingSecrets(stored, new Date())[0]).toMatch(/^whsec_/);
  });

  it('the development key is generated once per database and shared by every process', async () => {
    const second = await startApi();
    try {
      const sealed = api.app.get(WebhookSecretBox).seal('whsec_shared');
      expect(second.app.get(WebhookSecretBox).open(sealed)).toBe('whsec_shared');
      const rows = await db.query(`SELECT count(*)::int AS n FROM platform_settings WHERE name = 'development_secrets_key'`);
      expect(rows[0].n).toBe(1);
    } finally {
      await second.close();
    }
  });

  it('the URL checker uses the replaceable resolver', async () => {
    const restore = stubDns(api.app, { 'hooks.example.com': ['93.184.216.34'], 'intranet.example.com': ['10.0.0.7'] });
    try {
      const checker = api.app.get(WebhookUrlChecker);
      await expect(checker.vet('https://hooks.example.com/x')).resolves.toMatchObject({ ipv4: ['93.184.216.34'] });
      await expect(checker.vet('https://intranet.example.com/x')).rejects.toBeInstanceOf(DomainException);
    } finally {
      restore();
    }
  });
});
