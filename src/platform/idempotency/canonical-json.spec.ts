import fc from 'fast-check';
import { canonicalJson, requestBodyHash } from './canonical-json.js';

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

describe('requestBodyHash', () => {
  it('ignores member order at every depth', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => requestBodyHash(value) === requestBodyHash(reversed(value))));
  });

  it('ignores the spacing of the JSON text', () => {
    expect(requestBodyHash(JSON.parse('{"a": [1, 2], "b": {"c": 3}}'))).toBe(requestBodyHash(JSON.parse('{"b":{"c":3},"a":[1,2]}')));
  });

  it('differs when a value differs', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), fc.jsonValue(), (object, name, value) => {
        fc.pre(JSON.stringify(object[name]) !== JSON.stringify(value) && Object.hasOwn(object, name));
        return requestBodyHash(object) !== requestBodyHash({ ...object, [name]: value });
      }),
    );
    expect(requestBodyHash({ amount: 1 })).not.toBe(requestBodyHash({ amount: '1' }));
    expect(requestBodyHash({ lines: [{ qty: 1 }] })).not.toBe(requestBodyHash({ lines: [{ qty: 2 }] }));
  });

  it('is a 64-character hex SHA-256', () => {
    expect(requestBodyHash({})).toMatch(/^[\da-f]{64}$/);
  });
});
