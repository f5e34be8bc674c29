import { buildRow, namedQuery, type PgQueryable } from './hot-query.js';

describe('buildRow', () => {
  it('makes one member per column from the row read as an array, values as they are', () => {
    const at = new Date('2026-11-29T12:00:00Z');
    const lines = [{ id: 'l1' }];
    expect(buildRow(['id', 'created_at', 'lines', 'notes'])(['i1', at, lines, null])).toEqual({ id: 'i1', created_at: at, lines, notes: null });
    expect((buildRow(['lines'])([lines]) as { lines: unknown }).lines).toBe(lines);
  });

  it('lets a later column of the same name win, as pg does', () => {
    expect(buildRow(['id', 'id'])(['first', 'second'])).toEqual({ id: 'second' });
  });

  it('takes any column name as a member name, never as code', () => {
    const names = ['a"b', "x'y", 'new\nline', '}; throw new Error("ran"); ({', 'constructor', '\u2028'];
    const row = buildRow(names)(names.map((_, index) => index));
    expect(Object.keys(row)).toEqual(names);
    expect(Object.values(row)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('refuses a column named __proto__, which as a literal member would set the prototype', () => {
    expect(() => buildRow(['id', '__proto__'])).toThrow(/__proto__/);
  });
});

describe('namedQuery', () => {
  /** A connection answering each statement with the columns and rows given for its text. */
  const connection = (answers: Record<string, { columns: string[]; rows: unknown[][] }>) => {
    const asked: unknown[] = [];
    const queryable: PgQueryable = {
      query: async (config) => {
        asked.push(config);
        const { columns, rows } = answers[config.text];
        return { fields: columns.map((name) => ({ name })), rows };
      },
    };
    return { queryable, asked };
  };

  it('asks for the rows as arrays, by the statement name, and answers them as objects', async () => {
    const { queryable, asked } = connection({ 'SELECT a, b': { columns: ['a', 'b'], rows: [[1, 'x'], [2, null]] } });
    expect(await namedQuery(queryable, 'spec-ab', 'SELECT a, b', [7])).toEqual([
      { a: 1, b: 'x' },
      { a: 2, b: null },
    ]);
    expect(asked).toEqual([{ name: 'spec-ab', text: 'SELECT a, b', values: [7], rowMode: 'array' }]);
  });

  it("makes a statement's rows by its own columns, should they differ under one name", async () => {
    const first = connection({ q: { columns: ['a'], rows: [[1]] } });
    const second = connection({ q: { columns: ['b', 'c'], rows: [[2, 3]] } });
    expect(await namedQuery(first.queryable, 'spec-changing', 'q', [])).toEqual([{ a: 1 }]);
    expect(await namedQuery(second.queryable, 'spec-changing', 'q', [])).toEqual([{ b: 2, c: 3 }]);
  });
});
