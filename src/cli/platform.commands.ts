import { type Command, InvalidArgumentError } from 'commander';
import { ApiKeysService } from '../platform/auth/api-keys.service.js';
import { SealedSecrets } from '../platform/crypto/sealed-secrets.js';
import { isScope, type Scope } from '../platform/catalog/scopes.js';
import { invalidCurrencies, TenantsService } from '../platform/tenancy/tenants.service.js';
import { parseRfc3339DateTime } from '../platform/validation/rfc3339.js';
import { type CommandGroupDeps, email, list, uuid } from '../platform/cli/command-group.js';

function scopes(values: string[]): Scope[] {
  const unknown = values.filter((value) => !isScope(value));
  if (unknown.length > 0) throw new Error(`unknown scopes: ${unknown.join(',')}`);
  if (values.length === 0) throw new Error('at least one scope is required');
  return values as Scope[];
}

/** A company's currencies, checked before anything runs. */
function currencies(value: string): string[] {
  const codes = list(value);
  const invalid = invalidCurrencies(codes);
  if (invalid !== undefined) throw new InvalidArgumentError(`not ISO 4217 codes in use (upper case): ${invalid}`);
  return codes;
}

/** A key's expiry. One already past is taken too (operations.md asks for an RFC 3339 time only): the key is refused from its first request. */
function expiry(value: string): Date {
  const date = parseRfc3339DateTime(value);
  if (!date) throw new InvalidArgumentError(`not an RFC 3339 timestamp: ${value}`);
  return date;
}

/** Companies, people and API keys (operations.md). */
export function platformCommands(program: Command, { context, output }: CommandGroupDeps): void {
  const tenants = async () => (await context()).get(TenantsService);
  const keys = async () => (await context()).get(ApiKeysService);

  program
    .command('tenant:create')
    .description('create a company; prints {id, slug, name}')
    .requiredOption('--name <name>')
    .option('--slug <slug>')
    .option('--currencies <codes>', 'comma-separated ISO 4217 codes', currencies, ['EUR'])
    .action(async (options: { name: string; slug?: string; currencies: string[] }) => {
      const tenant = await (await tenants()).create(options);
      output({ id: tenant.id, slug: tenant.slug, name: tenant.name });
    });

  program
    .command('tenant:deactivate')
    .description('deactivate a company: its keys answer 404 tenant_not_found, its agent-tool tokens 401, its webhooks stop; prints {id, active}')
    .requiredOption('--tenant <id>', 'company id', uuid)
    .action(async (options: { tenant: string }) => {
      const tenant = await (await tenants()).deactivate(options.tenant);
      output({ id: tenant.id, active: false });
    });

  program
    .command('user:create')
    .description('add a person to a company with read permissions (fin.invoices:read, …); prints {id}')
    .requiredOption('--tenant <id>', 'company id', uuid)
    .requiredOption('--email <email>', 'e-mail address', email)
    .option('--permissions <list>', 'comma-separated permissions', list, [])
    .action(async (options: { tenant: string; email: string; permissions: string[] }) => {
      const user = await (await tenants()).createUser(options.tenant, options.email, options.permissions);
      output({ id: user.id });
    });

  program
    .command('user:set-permissions')
    .description("replace a person's permissions; their agent-tool tokens follow at once; prints {id, permissions}")
    .requiredOption('--user <id>', 'user id', uuid)
    .requiredOption('--permissions <list>', 'comma-separated permissions; empty for none', list)
    .action(async (options: { user: string; permissions: string[] }) => {
      const user = await (await tenants()).setPermissions(options.user, options.permissions);
      output({ id: user.id, permissions: user.permissions });
    });

  program
    .command('key:create')
    .description('issue an oh_live_ API key with scopes; prints {id, key}, the key only this once')
    .requiredOption('--tenant <id>', 'company id', uuid)
    .requiredOption('--scopes <list>', 'comma-separated scopes', list)
    .option('--expires-at <rfc3339>', 'expiry (a time already past makes a key refused from its first request)', expiry)
    .option('--user <id>', 'the user who asked for the key', uuid)
    .option('--name <name>')
    .action(async (options: { tenant: string; scopes: string[]; expiresAt?: Date; user?: string; name?: string }) => {
      output(
        await (await keys()).create({
          tenantId: options.tenant,
          scopes: scopes(options.scopes),
          expiresAt: options.expiresAt,
          userId: options.user,
          name: options.name,
        }),
      );
    });

  for (const [command, state] of [
    ['key:revoke', 'revoked'],
    ['key:expire', 'expired'],
    ['key:delete', 'deleted'],
  ] as const) {
    program
      .command(command)
      .description(`mark an API key ${state}: it answers 401 from the next request on; prints {id, state}`)
      .requiredOption('--key <id>', 'API key id (as printed by key:create)', uuid)
      .action(async (options: { key: string }) => output(await (await keys()).changeState(options.key, state)));
  }

  program
    .command('secrets:reseal')
    .description(
      'seal every stored secret again under SECRETS_KEY (after setting or rotating it), then drop the development key; ' +
        'prints {resealed: {<kind>: n}, development_key_deleted}',
    )
    .action(async () => output(await (await context()).get(SealedSecrets).resealAll()));
}
