import type { Command } from 'commander';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';
import { type CommandGroupDeps, uuid } from '../platform/cli/command-group.js';

/** What support does for webhook endpoints (operations.md). */
export function webhookCommands(program: Command, { context, output }: CommandGroupDeps): void {
  program
    .command('webhook:grant-pii')
    .description('enable an endpoint for personal-data events; changing its url or event_types withdraws it again')
    .requiredOption('--endpoint <id>', 'webhook endpoint id', uuid)
    .action(async (options: { endpoint: string }) => {
      const endpoint = await (await context()).get(WebhookEndpointsService).grantPersonalData(options.endpoint);
      output({ id: endpoint.id, pii_enabled: endpoint.piiEnabled });
    });
}
