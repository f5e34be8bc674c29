import { countWithinBudget, withoutNulls } from './lean.js';

describe('withoutNulls', () => {
  it('drops null members at every depth and keeps everything else', () => {
    expect(withoutNulls({ a: null, b: 0, c: '', d: [{ e: null, f: false }], g: { h: null } })).toEqual({ b: 0, c: '', d: [{ f: false }], g: {} });
  });
});

describe('countWithinBudget', () => {
  const item = { id: 'x'.repeat(8) }; // 17 bytes of JSON + 1 separator
  it('counts the items that fit', () => {
    expect(countWithinBudget([item, item, item], 36)).toBe(2);
    expect(countWithinBudget([item, item, item], 1000)).toBe(3);
  });
  it('keeps at least one item, so a caller always makes progress', () => {
    expect(countWithinBudget([item, item], 1)).toBe(1);
  });
});
