import { RESOURCE_DTOS } from '../src/app/features.js';
import { EVENT_TYPES, EventCatalog } from '../src/platform/catalog/event-types.js';
import { EventDataCheck } from '../src/platform/events/event-data-check.js';

/** What a receiver checks of a record it is sent, on the example data every test event carries. */
function faultsOf(data: Record<string, unknown>, path = ''): string[] {
  const faults: string[] = [];
  for (const [member, value] of Object.entries(data)) {
    // A member shown as its own name ("auditor name"): a placeholder, no value.
    if (typeof value === 'string' && value === member.replace(/_/g, ' ')) faults.push(`${path}${member} is a placeholder`);
    if (/_year$/.test(member) && typeof value === 'number' && value < 2020) faults.push(`${path}${member} ${value}`);
    if (value && typeof value === 'object' && !Array.isArray(value)) faults.push(...faultsOf(value as Record<string, unknown>, `${path}${member}.`));
    if (Array.isArray(value)) for (const item of value) if (item && typeof item === 'object') faults.push(...faultsOf(item as Record<string, unknown>, `${path}${member}[].`));
  }
  const before = (first: string, last: string) => typeof data[first] === 'string' && typeof data[last] === 'string' && (data[last] as string) < (data[first] as string);
  for (const [first, last] of [['created_at', 'updated_at'], ['start_date', 'end_date'], ['period_start_date', 'period_end_date']]) {
    if (before(first, last)) faults.push(`${path}${last} before ${first}`);
  }
  if (typeof data.total_cost_minor === 'number' && data.total_cost_minor !== Number(data.labor_cost_minor) + Number(data.parts_cost_minor)) {
    faults.push(`${path}total_cost_minor is not labor_cost_minor + parts_cost_minor`);
  }
  return faults;
}

describe('the example data of every event type (test events, event:emit examples)', () => {
  const schemas = new EventDataCheck(RESOURCE_DTOS);

  it('reads as a real record would: amounts that add up, periods that run forward, no placeholder text, each kind of record its own id', async () => {
    const faults: string[] = [];
    const kindOfId = new Map<unknown, string>();
    for (const type of EVENT_TYPES) {
      const data = (await schemas.example(type)) as Record<string, unknown>;
      expect([type, await schemas.fault(type, data)]).toEqual([type, null]);
      faults.push(...faultsOf(data).map((fault) => `${type}: ${fault}`));
      // A receiver keeping records by id would take a vehicle's test event for an invoice's record.
      const kind = EventCatalog[type].dataSchema.$ref as string;
      if (kindOfId.has(data.id) && kindOfId.get(data.id) !== kind) faults.push(`${type}: the id of a ${kindOfId.get(data.id)}`);
      kindOfId.set(data.id, kind);
    }
    // Before: 12,000 + 12,000 = 12,000, a one-day leave of three days, a report for the year 2000, "auditor name", one id for all.
    expect(faults).toEqual([]);
  });
});
