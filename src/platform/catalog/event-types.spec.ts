import { EVENT_TYPES, EventCatalog, isEventType } from './event-types.js';
import { Scope } from './scopes.js';

/** `fm.work_order.created` → `int:fm.work_orders:read`: each family needs its resource's read scope. */
const readScopeOf = (type: string) => {
  const [area, resource] = type.split('.');
  return `int:${area}.${resource}s:read`;
};

describe('event catalogue', () => {
  /** The fleet, HR, support and documents families (other areas have their own rules). */
  const readModules = EVENT_TYPES.filter((type) => /^(fm|hr|support|files)\./.test(type) && EventCatalog[type].scope !== Scope.All);

  it('gives every family of a readable resource that resource’s read scope', () => {
    for (const type of readModules) expect({ type, scope: EventCatalog[type].scope }).toEqual({ type, scope: readScopeOf(type) });
  });

  it.each(['fm.work_order', 'fm.fuel_log', 'hr.employee', 'hr.leave_request', 'hr.timesheet', 'support.ticket', 'files.document', 'fm.vehicle'])(
    'has created, updated and a closing event for %s',
    (family) => {
      const types = EVENT_TYPES.filter((type) => type.startsWith(`${family}.`));
      expect(types).toEqual(expect.arrayContaining([`${family}.created`, `${family}.updated`]));
      expect(types.length).toBeGreaterThanOrEqual(3);
    },
  );

  it('marks driver, location, employee, requester and document data as personal, and work orders not', () => {
    const personal = /^(hr\.|fm\.vehicle\.|fm\.fuel_log\.|support\.ticket\.|files\.document\.)/;
    expect(readModules.length).toBeGreaterThan(25);
    for (const type of readModules) expect({ type, personal: EventCatalog[type].personalData }).toEqual({ type, personal: personal.test(type) });
  });

  it('knows exactly the catalogue types', () => {
    expect(isEventType('fm.fuel_log.created')).toBe(true);
    expect(isEventType('fm.fuel_log.*')).toBe(false);
    expect(isEventType('toString')).toBe(false);
  });
});
