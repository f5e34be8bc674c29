import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { DemoSeedContext, DemoSeeder } from '../platform/demo/demo-seeder.js';
import { demoShift, demoTimeline } from '../platform/demo/demo-timeline.js';
import { type InsertRow, insertRows } from '../platform/demo/insert-rows.js';
import { Ticket } from './ticket.entity.js';

/** What customers of a fleet and finance software write in about. */
const SUBJECTS: readonly ((faker: DemoSeedContext['faker']) => string)[] = [
  (faker) => `Fuel card declined at ${faker.location.city()}`,
  (faker) => `Vehicle ${faker.vehicle.vrm()} shows no GPS position`,
  (faker) => `Invoice INV-${faker.number.int({ min: 1000, max: 9999 })} has the wrong VAT rate`,
  () => 'Cannot log in to the driver app',
  () => 'Password reset link has expired',
  () => 'Please add a new user to our account',
  () => 'Export to DATEV fails with an error',
  () => 'Mileage report is missing last week',
  () => 'Damage report photos are not saved',
  () => 'Question about our subscription',
  (faker) => `Request: change the billing address to ${faker.location.streetAddress()}`,
  () => 'Timesheet approval button is greyed out',
];

/** Support tickets; assignees are HR's employees when HR ran first. */
@Injectable()
export class SupportDemoSeeder implements DemoSeeder {
  async seed({ data, records, faker, ids = {} }: DemoSeedContext): Promise<Record<string, string[]>> {
    const now = new Date();
    const agents = (ids.employee_ids ?? []).slice(0, 6);
    const pick = <T>(weights: Record<string, number>) =>
      faker.helpers.weightedArrayElement(Object.entries(weights).map(([value, weight]) => ({ value, weight }))) as T;

    const [{ count: existing }] = await data.query<{ count: number }>(`SELECT count(*)::int AS count FROM tickets WHERE tenant_id = $1`);
    const tickets = demoTimeline(faker, records, { days: 365, end: now }).map((createdAt, index) => {
      const status = pick<Ticket['status']>({ new: 2, open: 3, pending: 2, on_hold: 1, solved: 4, closed: 6 });
      const firstName = faker.person.firstName();
      const lastName = faker.person.lastName();
      const firstResponseAt = status === 'new' ? null : demoShift(createdAt, faker.number.int({ min: 3, max: 60 * 24 }), now);
      const solvedAt =
        (status === 'solved' || status === 'closed') && firstResponseAt
          ? demoShift(firstResponseAt.toISOString(), faker.number.int({ min: 10, max: 60 * 24 * 7 }), now)
          : null;
      return {
        id: randomUUID(),
        number: `TCK-${String(existing + index + 1).padStart(6, '0')}`,
        subject: faker.helpers.arrayElement(SUBJECTS)(faker),
        status,
        priority: pick<Ticket['priority']>({ low: 3, normal: 8, high: 3, urgent: 1 }),
        channel: pick<Ticket['channel']>({ email: 6, web: 4, phone: 2, chat: 3, api: 1 }),
        requesterName: faker.datatype.boolean(0.9) ? `${firstName} ${lastName}` : null,
        requesterEmail: faker.internet.exampleEmail({ firstName, lastName }).toLowerCase(),
        assigneeId: status !== 'new' && agents.length > 0 ? faker.helpers.arrayElement(agents) : null,
        firstResponseAt,
        solvedAt,
        createdAt,
        updatedAt: solvedAt ?? firstResponseAt ?? createdAt,
      } satisfies InsertRow<Ticket>;
    });

    await insertRows(data, Ticket, tickets);
    return { ticket_ids: tickets.map((ticket) => ticket.id) };
  }
}
