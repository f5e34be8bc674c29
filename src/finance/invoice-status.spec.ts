import { settledStatus } from './invoice-status.js';

describe('settledStatus', () => {
  const marked = new Date('2026-05-01T00:00:00Z');

  it.each([
    [{ totalMinor: 1000, paidMinor: 0, overdueAt: null }, 'issued'],
    [{ totalMinor: 1000, paidMinor: 1, overdueAt: null }, 'partial'],
    [{ totalMinor: 1000, paidMinor: 1000, overdueAt: null }, 'paid'],
    [{ totalMinor: 1000, paidMinor: 0, overdueAt: marked }, 'overdue'],
    [{ totalMinor: 1000, paidMinor: 999, overdueAt: marked }, 'overdue'],
    [{ totalMinor: 1000, paidMinor: 1000, overdueAt: marked }, 'paid'],
    [{ totalMinor: 0, paidMinor: 0, overdueAt: null }, 'issued'],
  ])('%p → %s', (state, expected) => {
    expect(settledStatus(state)).toBe(expected);
  });
});
