import { DomainException } from '../errors/domain.exception.js';
import { checkBody } from './request-checks.js';

/** The refusal's `field` and `code`, or undefined when the body passes. */
function refusal(body: unknown): { field: unknown; code: unknown; message: string } | undefined {
  try {
    checkBody(body);
    return undefined;
  } catch (error) {
    if (!(error instanceof DomainException)) throw error;
    return { field: error.extras.field, code: error.extras.code, message: error.message };
  }
}

/** `levels` objects, each inside the one before. */
const nested = (levels: number): unknown => (levels === 1 ? { a: 1 } : { a: nested(levels - 1) });

describe('checkBody', () => {
  it('names the path of a text holding U+0000 or an unpaired surrogate: a member, its name, an array item, nested arrays', () => {
    expect(refusal({ notes: 'a\u0000' })).toMatchObject({ field: 'notes', code: 'invalid_character' });
    expect(refusal({ lines: [{ qty: 1 }, { 'd\u0000': 1 }] })).toMatchObject({ field: 'lines[1].d\u0000', code: 'invalid_character' });
    expect(refusal({ event_types: ['fin.invoice.created', 'x\ud800'] })).toMatchObject({ field: 'event_types[1]', code: 'unpaired_surrogate' });
    expect(refusal({ a: [['ok', ['\udfff']]] })).toMatchObject({ field: 'a[0][1][0]', code: 'unpaired_surrogate' });
    expect(refusal('\u0000')).toMatchObject({ field: undefined, message: 'The body contains the character U+0000, which cannot be stored.' });
  });

  it('accepts 64 levels of nesting and refuses 65', () => {
    expect(refusal(nested(64))).toBeUndefined();
    expect(refusal(nested(65))).toMatchObject({ code: 'max_depth' });
    expect(refusal({ a: [[[nested(62)]]] })).toMatchObject({ code: 'max_depth' });
  });

  it('passes what JSON allows besides: numbers, null, booleans, empty containers, paired surrogates, many members', () => {
    expect(refusal({ n: 1, z: null, t: true, o: {}, l: [], emoji: '\ud83d\ude00', many: Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`m${i}`, i])) })).toBeUndefined();
    expect(refusal(5)).toBeUndefined();
    expect(refusal(null)).toBeUndefined();
  });
});
