import { countWithinBudget, leanItem, withoutNulls } from './lean.js';

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

describe('leanItem', () => {
  const invoice = { id: 'i', number: null, notes: '', tags: [], lines: [{ id: 'l1', note: null }, { id: 'l2' }], codes: ['a'] };

  it('drops nulls and empty arrays and counts nested records instead of listing them', () => {
    expect(leanItem(invoice)).toEqual({ id: 'i', notes: '', line_count: 2, codes: ['a'] });
  });

  it('keeps only id and the fields asked for, nested records in full when named', () => {
    expect(leanItem(invoice, ['lines'])).toEqual({ id: 'i', lines: [{ id: 'l1' }, { id: 'l2' }] });
    expect(leanItem(invoice, ['notes', 'number'])).toEqual({ id: 'i', notes: '' });
  });
});
