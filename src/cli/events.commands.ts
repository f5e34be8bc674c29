import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { isEventType } from '../platform/catalog/event-types.js';
import { EventPublisher } from '../platform/events/event-publisher.service.js';
import { checkBody } from '../platform/http/request-checks.js';
import { TenantData } from '../platform/tenancy/tenant-data.js';
import { TenantsService } from '../platform/tenancy/tenants.service.js';
import { type CommandGroupDeps, uuid } from '../platform/cli/command-group.js';

function numbers(value: unknown): number[] {
  if (typeof value === 'number') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(numbers);
}

/**
 * Event data is a JSON object, like every resource representation events carry, that the
 * outbox can store: the REST API's body checks (depth, U+0000, unpaired surrogates) apply.
 */
function jsonObject(value: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('not JSON');
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new InvalidArgumentError('not a JSON object');
  // First: it bounds the depth, without recursion, for the recursive walk below.
  try {
    checkBody(data);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
  // Published as given, so a number JSON.parse cannot keep (1e400 became null, a 23-digit integer another number) is refused.
  const inexact = numbers(data).find((number) => !Number.isFinite(number) || (Number.isInteger(number) && !Number.isSafeInteger(number)));
  if (inexact !== undefined) throw new InvalidArgumentError(`holds a number that cannot be kept exactly (${inexact}): write it as a string`);
  return data as Record<string, unknown>;
}

/** Publishing catalogue events by hand, as the modules that emit them would (operations.md). */
export function eventCommands(program: Command, { context, output }: CommandGroupDeps): void {
  program
    .command('event:emit')
    .description('publish a catalogue event of a company through the outbox; prints the event id')
    .requiredOption('--tenant <id>', 'company id', uuid)
    .requiredOption('--type <type>', 'event type from the catalogue')
    .requiredOption('--data <json>', "event data, a JSON object, published as given (the applications' own events match the type's schema: GET /v1/event_types)", jsonObject)
    .action(async (options: { tenant: string; type: string; data: Record<string, unknown> }) => {
      const { type } = options;
      if (!isEventType(type)) throw new Error(`unknown event type: ${type}`);
      const app = await context();
      const tenant = await app.get(TenantsService).findById(options.tenant);
      if (!tenant) throw new Error(`Tenant ${options.tenant} not found`);
      const envelope = await app.get(TenantData).transaction(tenant.id, (scope) => app.get(EventPublisher).publishAsGiven(scope, type, options.data));
      output({ id: envelope.id });
    });
}
