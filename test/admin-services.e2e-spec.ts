import { randomUUID } from 'node:crypto';
import { ReferenceDataService } from '../src/finance/reference-data.service.js';
import { McpTokensService } from '../src/mcp/mcp-tokens.service.js';
import { ApiKeysService } from '../src/platform/auth/api-keys.service.js';
import { DomainException } from '../src/platform/errors/domain.exception.js';
import { TenantsService } from '../src/platform/tenancy/tenants.service.js';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CliModule } from '../src/cli/cli.module.js';
import { testConfig } from './support/config.js';

/**
 * The admin services fail with the typed domain exceptions everything else uses, never a plain
 * Error. They run in the admin CLI's context, as in production.
 */
describe('admin services (e2e)', () => {
  let app: INestApplicationContext;
  let tenants: TenantsService;
  let reference: ReferenceDataService;

  beforeAll(async () => {
    app = await NestFactory.createApplicationContext(CliModule.register(testConfig()), { logger: false });
    tenants = app.get(TenantsService);
    reference = app.get(ReferenceDataService);
  });
  afterAll(() => app.close());

  async function failure(action: () => Promise<unknown>): Promise<{ detailKey: string; field: unknown; message: string }> {
    const error = await action().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(DomainException);
    const domain = error as DomainException;
    return { detailKey: domain.definition.detailKey, field: domain.extras.field, message: domain.message };
  }

  it('refuses bad company input with invalid_input naming the member', async () => {
    expect(await failure(() => tenants.create({ name: 'X', currencies: ['eur'] }))).toMatchObject({ detailKey: 'errors.common.validation.invalid_input', field: 'currencies' });
    expect(await failure(() => tenants.create({ name: 'X', slug: '-bad' }))).toMatchObject({ detailKey: 'errors.common.validation.invalid_input', field: 'slug' });
    expect(await failure(() => tenants.create({ name: ' ' }))).toMatchObject({ detailKey: 'errors.common.validation.invalid_input', field: 'name' });
  });

  it('keeps slugs apart from company ids, so X-OH-Tenant names one company: a slug of that form is refused, and none is derived', async () => {
    const other = await tenants.create({ name: 'Other' });
    expect(await failure(() => tenants.create({ name: 'Z', slug: other.id }))).toMatchObject({ detailKey: 'errors.common.validation.invalid_input', field: 'slug' });
    expect(await failure(() => tenants.create({ name: 'Z', slug: randomUUID() }))).toMatchObject({ detailKey: 'errors.common.validation.invalid_input', field: 'slug' });
    const named = await tenants.create({ name: other.id });
    expect(named.slug).toBe(`company-${other.id}`);
  });

  it('refuses a taken slug with slug_taken', async () => {
    const slug = `taken-${randomUUID().slice(0, 8)}`;
    await tenants.create({ name: 'First', slug });
    expect(await failure(() => tenants.create({ name: 'Second', slug }))).toEqual({ detailKey: 'errors.admin.slug_taken', field: 'slug', message: `slug ${slug} is taken` });
  });

  it('answers unknown users and permissions with their keys', async () => {
    expect(await failure(() => tenants.setPermissions(randomUUID(), []))).toMatchObject({ detailKey: 'errors.admin.user_not_found' });
    const tenant = await tenants.create({ name: 'Perms' });
    expect(await failure(() => tenants.createUser(tenant.id, 'a@example.test', ['nope']))).toMatchObject({
      detailKey: 'errors.common.validation.invalid_input',
      field: 'permissions',
    });
  });

  it('refuses reference data for an unknown company or a bad tax rate', async () => {
    expect(await failure(() => reference.createCustomer(randomUUID(), 'Acme'))).toMatchObject({ detailKey: 'errors.common.tenant_not_found' });
    const tenant = await tenants.create({ name: 'Rates' });
    expect(await failure(() => reference.createTaxRate(tenant.id, '101'))).toMatchObject({ detailKey: 'errors.common.validation.invalid_input', field: 'rate' });
  });

  it('answers unknown keys, companies and agent-tool tokens with their not-found keys', async () => {
    expect(await failure(() => app.get(ApiKeysService).changeState(randomUUID(), 'revoked'))).toMatchObject({ detailKey: 'errors.admin.api_key_not_found' });
    expect(await failure(() => tenants.deactivate(randomUUID()))).toMatchObject({ detailKey: 'errors.common.tenant_not_found' });
    const tokens = app.get(McpTokensService);
    expect(await failure(() => tokens.revoke(randomUUID()))).toMatchObject({ detailKey: 'errors.admin.mcp_token_not_found' });
    expect(await failure(() => tokens.create({ tenantId: randomUUID(), userId: randomUUID(), tools: ['*'] }, []))).toMatchObject({ detailKey: 'errors.common.tenant_not_found' });
    const tenant = await tenants.create({ name: 'Tokens' });
    expect(await failure(() => tokens.create({ tenantId: tenant.id, userId: randomUUID(), tools: ['*'] }, []))).toMatchObject({ detailKey: 'errors.admin.user_not_found' });
    expect(await failure(() => tokens.create({ tenantId: tenant.id, userId: randomUUID(), tools: ['*', 'list_invoices'] }, ['list_invoices']))).toMatchObject({
      detailKey: 'errors.common.validation.invalid_input',
      field: 'tools',
    });
  });
});
