import fc from 'fast-check';
import {
  decimalEquals,
  decimalOf,
  divideRounded,
  formatDecimal,
  invoiceTotals,
  lineAmounts,
  MAX_MINOR,
  MAX_QTY,
  parseDecimal,
  withinMaxMinor,
} from './invoice-totals.js';

describe('invoice totals', () => {
  it.each([
    [5n, 2n, 3n],
    [-5n, 2n, -3n],
    [4n, 2n, 2n],
    [7n, 3n, 2n],
    [-7n, 3n, -2n],
    [149n, 100n, 1n],
    [150n, 100n, 2n],
    [-150n, 100n, -2n],
    [0n, 7n, 0n],
  ])('rounds %p / %p half away from zero to %p', (numerator, denominator, expected) => {
    expect(divideRounded(numerator, denominator)).toBe(expected);
  });

  it('takes a number as the decimal it was written as', () => {
    // 1.005 is 1.00499999999999989... in binary; as written it is exactly 1.005.
    expect(lineAmounts(decimalOf(1.005), 100n, decimalOf(0)).netMinor).toBe(101n);
    expect(lineAmounts(decimalOf(0.1), 5n, decimalOf(0)).netMinor).toBe(1n);
    expect(formatDecimal(decimalOf(1e-7))).toBe('0.0000001');
    expect(formatDecimal(decimalOf(1e21))).toBe('1000000000000000000000');
    expect(formatDecimal(decimalOf(-0))).toBe('0');
    expect(formatDecimal(parseDecimal('19.5000')!)).toBe('19.5');
    expect(decimalEquals(parseDecimal('19.000')!, decimalOf(19))).toBe(true);
    expect(decimalEquals(parseDecimal('19.01')!, decimalOf(19))).toBe(false);
  });

  it('computes the documented example', () => {
    const lines = [lineAmounts(decimalOf(2), 1999n, decimalOf(19)), lineAmounts(decimalOf(1.5), 333n, decimalOf(7))];
    // 2 × 1999 = 3998, tax 759.62 → 760; 1.5 × 333 = 499.5 → 500, tax 35
    expect(lines).toEqual([
      { netMinor: 3998n, taxMinor: 760n },
      { netMinor: 500n, taxMinor: 35n },
    ]);
    expect(invoiceTotals(lines)).toEqual({ subtotalMinor: 4498n, taxMinor: 795n, totalMinor: 5293n });
  });

  /** A decimal as the generator knows it (units / 10^scale) and the JSON number a client sends. */
  const decimal = (maxUnits: bigint, maxScale: number) =>
    fc.tuple(fc.bigInt({ min: 0n, max: maxUnits }), fc.integer({ min: 0, max: maxScale })).map(([units, scale]) => ({
      units,
      scale,
      value: Number(`${units}e-${scale}`),
    }));

  const reference = (qty: { units: bigint; scale: number }, price: bigint, rate: { units: bigint; scale: number }) => {
    // Independent of the implementation: exact fractions, rounded by comparing twice the remainder.
    const round = (n: bigint, d: bigint) => (n / d) + ((n % d) * 2n >= d ? 1n : 0n);
    const net = round(qty.units * price, 10n ** BigInt(qty.scale));
    return { net, tax: round(net * rate.units, 100n * 10n ** BigInt(rate.scale)) };
  };

  it('equals the documented formula for random lines (property)', () => {
    const line = fc.record({
      qty: decimal(10n ** 12n, 3).filter((q) => q.value <= MAX_QTY),
      price: fc.bigInt({ min: 0n, max: 10n ** 10n }),
      rate: decimal(10_000n, 2).filter((r) => r.value <= 100),
    });
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 30 }), (lines) => {
        const computed = lines.map((l) => lineAmounts(decimalOf(l.qty.value), l.price, decimalOf(l.rate.value)));
        const expected = lines.map((l) => reference(l.qty, l.price, l.rate));
        computed.forEach((c, i) => {
          expect(c.netMinor).toBe(expected[i].net);
          expect(c.taxMinor).toBe(expected[i].tax);
          expect(c.taxMinor <= c.netMinor).toBe(true);
        });
        const totals = invoiceTotals(computed);
        const subtotal = expected.reduce((sum, e) => sum + e.net, 0n);
        const tax = expected.reduce((sum, e) => sum + e.tax, 0n);
        expect(totals).toEqual({ subtotalMinor: subtotal, taxMinor: tax, totalMinor: subtotal + tax });
      }),
      { numRuns: 300 },
    );
  });

  it('never overflows: extreme inputs stay exact, and what passes the limit check is a safe integer (property)', () => {
    const extremeLine = fc.record({
      qty: fc.oneof(fc.constant(MAX_QTY), fc.double({ min: 0, max: MAX_QTY, noNaN: true }), fc.nat()),
      price: fc.oneof(fc.constant(BigInt(MAX_MINOR)), fc.bigInt({ min: 0n, max: BigInt(MAX_MINOR) })),
      rate: fc.oneof(fc.constant(100), fc.double({ min: 0, max: 100, noNaN: true })),
    });
    fc.assert(
      fc.property(fc.array(extremeLine, { minLength: 1, maxLength: 20 }), (lines) => {
        const computed = lines.map((l) => lineAmounts(decimalOf(l.qty), l.price, decimalOf(l.rate)));
        for (const [i, c] of computed.entries()) {
          // Exactness: the BigInt result is within half a unit of the real product.
          const qty = decimalOf(lines[i].qty);
          const exact = qty.units * lines[i].price;
          const scaled = c.netMinor * 10n ** BigInt(qty.scale);
          expect((scaled - exact) * 2n <= 10n ** BigInt(qty.scale)).toBe(true);
          expect((exact - scaled) * 2n < 10n ** BigInt(qty.scale)).toBe(true);
        }
        const totals = invoiceTotals(computed);
        if (withinMaxMinor(totals.totalMinor)) {
          for (const amount of [totals.subtotalMinor, totals.taxMinor, totals.totalMinor]) {
            expect(Number.isSafeInteger(Number(amount))).toBe(true);
            expect(BigInt(Number(amount))).toBe(amount);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips any finite non-negative number through the stored decimal text', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: MAX_QTY, noNaN: true }), (value) => {
        expect(Number(formatDecimal(decimalOf(value)))).toBe(value === 0 ? 0 : value);
      }),
    );
  });
});
