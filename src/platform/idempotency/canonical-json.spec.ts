import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { canonicalJson, requestHashes } from './canonical-json.js';

const requestHash = (body: unknown, query?: Record<string, unknown>) => requestHashes(body, query).request;

/** Rebuilds every object of a JSON value with its members in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).reverse().map(([name, member]) => [name, reversed(member)]));
  }
  return value;
}

describe('canonicalJson', () => {
  it('sorts object members recursively and drops whitespace', () => {
    const body = JSON.parse('{ "b": 1, "a": { "d": [3, {"z": true, "y": null}], "c": "x" } }');
    expect(canonicalJson(body)).toBe('{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}');
  });

  it('keeps array order significant', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it('treats a missing body as null', () => {
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('writes a number beyond the double range as such, not as null', () => {
    const body = JSON.parse('{"a":1e999,"b":-1e400,"c":null}');
    expect(canonicalJson(body)).toBe('{"a":1e999,"b":-1e999,"c":null}');
    expect(requestHash(JSON.parse('{"notes":1e999}'))).not.toBe(requestHash({ notes: null }));
  });

  it('escapes names and strings as JSON does', () => {
    expect(canonicalJson({ 'a"b': 'line\nbreak', é: 'ü' })).toBe('{"a\\"b":"line\\nbreak","é":"ü"}');
  });

  it('is valid JSON that parses back to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

describe('requestHashes', () => {
  it('ignores member order at every depth', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => requestHash(value) === requestHash(reversed(value))));
  });

  it('ignores the spacing of the JSON text', () => {
    expect(requestHash(JSON.parse('{"a": [1, 2], "b": {"c": 3}}'))).toBe(requestHash(JSON.parse('{"b":{"c":3},"a":[1,2]}')));
  });

  it('differs when a value differs', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), fc.jsonValue(), (object, name, value) => {
        fc.pre(JSON.stringify(object[name]) !== JSON.stringify(value) && Object.hasOwn(object, name));
        return requestHash(object) !== requestHash({ ...object, [name]: value });
      }),
    );
    expect(requestHash({ amount: 1 })).not.toBe(requestHash({ amount: '1' }));
    expect(requestHash({ lines: [{ qty: 1 }] })).not.toBe(requestHash({ lines: [{ qty: 2 }] }));
  });

  it('counts the query parameters, in any order, and hashes a request without them as its body alone', () => {
    expect(requestHash({ a: 1 }, { since: '2026-01-01T00:00:00Z' })).not.toBe(requestHash({ a: 1 }, { since: '2026-01-02T00:00:00Z' }));
    expect(requestHash(null, { since: 'x' })).not.toBe(requestHash(null));
    expect(requestHash(null, { a: '1', b: '2' })).toBe(requestHash(null, { b: '2', a: '1' }));
    expect(requestHash({ a: 1 }, {})).toBe(createHash('sha256').update('{"a":1}').digest('hex'));
    expect(requestHashes({ a: 1 }, { since: 'x' }).body).toBe(createHash('sha256').update('{"a":1}').digest('hex'));
  });

  it('is a 64-character hex SHA-256', () => {
    expect(requestHash({})).toMatch(/^[\da-f]{64}$/);
  });
});
