import fc from 'fast-check';
import { countWithinBudget, fitItem, leanItem, withoutNulls } from './lean.js';

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

describe('fitItem', () => {
  const lines = Array.from({ length: 100 }, (_, index) => ({ id: `l${index}`, text: 'x'.repeat(80) }));
  const invoice = { id: 'i', notes: 'n'.repeat(50), lines, codes: ['a'] };

  it('leaves an item within the budget as it is', () => {
    expect(fitItem(invoice, 1_000_000)).toEqual({ item: invoice, cut: [] });
  });

  it('keeps the leading nested records that fit, their count beside them, and every other member', () => {
    const { item, cut } = fitItem(invoice, 2_000);
    expect(Buffer.byteLength(JSON.stringify(item))).toBeLessThanOrEqual(2_000);
    const kept = item.lines as typeof lines;
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).toEqual(lines.slice(0, kept.length));
    expect(item).toMatchObject({ id: 'i', notes: invoice.notes, codes: ['a'], line_count: 100 });
    expect(cut).toEqual([`lines holds the first ${kept.length} of line_count`]);
  });

  it('keeps no nested record when the rest of the item leaves no room', () => {
    const { item } = fitItem(invoice, 100);
    expect(item).toMatchObject({ lines: [], line_count: 100 });
  });

  it('cuts the longest texts, ending them with …, until the item fits', () => {
    const payment = { id: 'p', status: 'failed', failure_reason: 'r'.repeat(1_000_000), note: 'short' };
    const { item, cut } = fitItem(payment, 9_000);
    // Before: the 1 MB reason was answered whole.
    expect(Buffer.byteLength(JSON.stringify(item))).toBeLessThanOrEqual(9_000);
    expect(item).toMatchObject({ id: 'p', status: 'failed', note: 'short', failure_reason: expect.stringMatching(/^r{8000,}…$/) });
    expect(cut).toEqual([`failure_reason holds its first ${(item.failure_reason as string).length - 1} of 1000000 characters`]);
  });

  it('fits any texts within the budget, cut at whole characters, escapes and emoji included', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: 'grapheme-ascii', maxLength: 3 }), fc.string({ unit: 'binary', minLength: 300, maxLength: 3_000, size: 'max' }), { maxKeys: 6 }), (texts) => {
        const { item } = fitItem({ id: 'x', ...texts }, 2_000);
        expect(Buffer.byteLength(JSON.stringify(item))).toBeLessThanOrEqual(2_000);
        for (const [name, value] of Object.entries(item)) {
          if (name === 'id' || value === texts[name]) continue;
          const kept = (value as string).slice(0, -1);
          expect(texts[name].startsWith(kept)).toBe(true);
          // Never between the two halves of a character outside the BMP.
          expect(/[\ud800-\udbff]$/.test(kept) && /^[\udc00-\udfff]/.test(texts[name].slice(kept.length))).toBe(false);
        }
      }),
      { numRuns: 100, endOnFailure: true },
    );
  });
});
