import * as z from 'zod';
import { Scope } from '../platform/catalog/scopes.js';
import { countBy, total } from '../platform/resources/count-by.js';
import type { AreaSummary } from '../platform/resources/read-resource.js';

const output = z.object({
  tickets_by_status: z.record(z.string(), z.number().int()),
  unsolved_tickets_by_priority: z.record(z.string(), z.number().int()).describe('Tickets not solved or closed, by priority.'),
  unsolved_tickets: z.number().int(),
});

export const supportSummary: AreaSummary<z.infer<typeof output>> = {
  area: 'support',
  title: 'Support summary',
  description:
    'Support tickets by status (new, open, pending, on_hold, solved, closed) and the unsolved ones by priority (low, normal, high, urgent). ' +
    'Then search or list the tickets themselves.',
  scopes: [Scope.SupportTicketsRead],
  output,
  async compute(scope) {
    const unsolved = await countBy(scope, 'tickets', 'priority', `status NOT IN ('solved', 'closed')`);
    return {
      tickets_by_status: await countBy(scope, 'tickets', 'status'),
      unsolved_tickets_by_priority: unsolved,
      unsolved_tickets: total(unsolved),
    };
  },
};
