import fc from 'fast-check';
import pg from 'pg';
import { sqlLiteral } from './sql-literal.js';

describe('sqlLiteral', () => {
  it("quotes any string exactly as pg's escapeLiteral does", () => {
    const tricky = fc.constantFrom("'", '\\', "\\'", "''", '\\\\', 'E', ' ', '\u0000', '\n', '\u2028', '😀');
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.array(fc.oneof(tricky, fc.string()), { maxLength: 20 }).map((parts) => parts.join('')));
    fc.assert(fc.property(text, (value) => sqlLiteral(value) === pg.escapeLiteral(value)), { numRuns: 2000 });
    expect(sqlLiteral("it's a \\ path")).toBe(" E'it''s a \\\\ path'");
  });

  it('writes whole numbers as their digits and null as NULL, and refuses any other number', () => {
    expect(sqlLiteral(201)).toBe('201');
    expect(sqlLiteral(-3)).toBe('-3');
    expect(sqlLiteral(null)).toBe('NULL');
    expect(() => sqlLiteral(1.5)).toThrow(/whole number/);
    expect(() => sqlLiteral(Number.NaN)).toThrow(/whole number/);
  });
});
