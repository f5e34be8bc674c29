import type { INestApplicationContext } from '@nestjs/common';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { DataSource } from 'typeorm';
import { READ_RESOURCES } from '../app/features.js';
import { McpTokensService } from '../mcp/mcp-tokens.service.js';
import { grantableToolNames, TOOL_SOURCES, type ToolSources } from '../mcp/tool-names.js';
import { ApiKeysService } from '../platform/auth/api-keys.service.js';
import { permissionForScope, Scope } from '../platform/catalog/scopes.js';
import { TenantData } from '../platform/tenancy/tenant-data.js';
import { TenantsService } from '../platform/tenancy/tenants.service.js';
import { type CommandGroupDeps, integer } from '../platform/cli/command-group.js';
import { runDemoSeeders, seconds } from './demo-seeders.js';

/** The faker seed of every demo company: the same names and values each time. */
const DEMO_FAKER_SEED = 20_260_516;
const DEFAULT_RECORDS = 25;
const MAX_RECORDS = 10_000;

/** The scope of every readable resource of the registry. */
const DEMO_READ_SCOPES: readonly Scope[] = READ_RESOURCES.map((resource) => resource.scope);
const FINANCE_READ_SCOPES = READ_RESOURCES.filter((resource) => resource.area === 'finance').map((resource) => resource.scope);

/** The keys `seed:demo` prints, each for one kind of integration. */
const DEMO_KEY_SCOPES = {
  all: [Scope.All],
  read: DEMO_READ_SCOPES,
  finance_write: [Scope.FinInvoicesWrite, ...FINANCE_READ_SCOPES],
  webhooks: [Scope.WebhooksManage, ...DEMO_READ_SCOPES],
} as const satisfies Record<string, readonly Scope[]>;

export interface DemoCompany {
  tenant: { id: string; slug: string };
  keys: Record<keyof typeof DEMO_KEY_SCOPES, string>;
  user: { id: string };
  mcp_token: string;
  customer_ids: string[];
}

function records(value: string): number {
  const count = integer(value);
  if (count < 1 || count > MAX_RECORDS) throw new InvalidArgumentError(`must be between 1 and ${MAX_RECORDS}`);
  return count;
}

/**
 * A new company with `count` records of every readable resource, a user holding every read
 * permission, the four demo keys and an agent-tool token, all in one transaction: a failure
 * leaves nothing behind.
 */
async function seedDemoCompany(app: INestApplicationContext, count: number, progress: (line: string) => void = () => undefined): Promise<DemoCompany> {
  const started = performance.now();
  // Loaded here, not with the CLI: it is half a second of CPU in every other command's start.
  const { Faker, base, en } = await import('@faker-js/faker');
  const faker = new Faker({ locale: [en, base], seed: DEMO_FAKER_SEED });
  const tenants = app.get(TenantsService);
  const keys = app.get(ApiKeysService);
  return app.get(DataSource).transaction(async (manager) => {
    const tenant = await tenants.create({ name: faker.company.name(), currencies: ['EUR', 'USD', 'GBP'] }, manager);
    const user = await tenants.createUser(tenant.id, `demo@${tenant.slug}.example`, DEMO_READ_SCOPES.map(permissionForScope), manager);
    const created: Partial<DemoCompany['keys']> = {};
    for (const [name, scopes] of Object.entries(DEMO_KEY_SCOPES) as [keyof typeof DEMO_KEY_SCOPES, readonly Scope[]][]) {
      created[name] = (await keys.create({ tenantId: tenant.id, scopes: [...scopes], userId: user.id, name: `Demo: ${name}` }, manager)).key;
    }

    const data = app.get(TenantData).forTenant(tenant.id, manager);
    const ids = await runDemoSeeders(app, { data, records: count, faker }, progress);
    const counts: string[] = [];
    for (const resource of READ_RESOURCES) counts.push(`${resource.name} ${await data.repository(resource.entity).count({})}`);
    progress(`seed:demo: ${counts.join(', ')}; ${seconds(started)} in all`);

    const { token } = await app.get(McpTokensService).create({ tenantId: tenant.id, userId: user.id, tools: ['*'] }, grantableToolNames(app.get<ToolSources>(TOOL_SOURCES)), manager);
    return {
      tenant: { id: tenant.id, slug: tenant.slug },
      keys: created as DemoCompany['keys'],
      user: { id: user.id },
      mcp_token: token,
      customer_ids: ids.customer_ids ?? [],
    };
  });
}

/** `seed:demo [--records N]` (operations.md). */
export function demoCommands(program: Command, { context, output, progress, terminal }: CommandGroupDeps): void {
  program
    .command('seed:demo')
    .description('create a demo company with N records of every readable resource and keys ready to use')
    .option('--records <n>', `records per resource, 1-${MAX_RECORDS}`, records, DEFAULT_RECORDS)
    .option('--progress', 'report progress on stderr (without it, only when stderr is a terminal)')
    .action(async (options: { records: number; progress?: true }) =>
      output(await seedDemoCompany(await context(), options.records, options.progress || terminal ? progress : undefined)),
    );
}
