import { ArrayMaxSize, IsDefined, IsInt, IsOptional, IsString, MaxLength } from 'class-validator';
import { DomainException } from '../errors/domain.exception.js';
import { Checks, LISTED_FAULTS, MaxCodePoints, NestedList, ValidatedBody, validateBody } from './validated-body.js';

const RULES = {
  invalidBody: 'InvoiceInvalidBody',
  problems: [
    { error: 'InvoiceRequired', field: true },
    { error: 'InvoiceLineInvalid', firstOnly: true, field: true, code: true, detail: 'first' },
    { error: 'InvoiceValidationFailed' },
  ],
} as const satisfies Parameters<typeof ValidatedBody>[0];

@ValidatedBody({ ...RULES, problems: [...RULES.problems] })
class ItemDto {
  @Checks(IsDefined({ context: { problem: 'InvoiceLineInvalid', message: '$path is required' } }), IsInt({ context: { problem: 'InvoiceLineInvalid', code: 'not_an_integer' } }))
  n: number;

  @IsOptional()
  @IsString()
  label?: string;
}

@ValidatedBody({ ...RULES, problems: [...RULES.problems] })
class BodyDto {
  @Checks(IsDefined({ context: { problem: 'InvoiceRequired' } }), IsString(), MaxLength(3))
  name: string;

  @Checks(IsOptional(), NestedList(() => ItemDto, { problem: 'InvoiceLineInvalid', code: 'not_an_object', message: '$path must be an object, not $kind' }))
  items?: ItemDto[];

  @IsOptional()
  @MaxCodePoints(2)
  note?: string;
}

@ValidatedBody({ ...RULES, problems: [...RULES.problems] })
class ShortListDto {
  @Checks(ArrayMaxSize(2), NestedList(() => ItemDto, { problem: 'InvoiceLineInvalid', code: 'not_an_object', message: '$path must be an object, not $kind' }))
  items: ItemDto[];
}

function problem(body: unknown, dto: new () => object = BodyDto): DomainException {
  try {
    validateBody(dto, body);
  } catch (error) {
    if (error instanceof DomainException) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('validateBody', () => {
  it('returns an instance of the DTO holding only declared members', () => {
    const body = validateBody(BodyDto, { name: 'abc', items: [{ n: 1 }], note: '😀😀' });
    expect(body).toBeInstanceOf(BodyDto);
    expect(body.items![0]).toBeInstanceOf(ItemDto);
    expect(body).toEqual({ name: 'abc', items: [{ n: 1 }], note: '😀😀' });
  });

  it('answers the first kind with faults: required, then the first line fault, then all the rest', () => {
    expect(problem({ items: [{ n: 'x' }], extra: 1 }).extras).toMatchObject({ field: 'name' });
    const line = problem({ name: 'toolong', items: [{ n: 1 }, 'text', { n: 1.5 }], extra: 1 });
    expect(line.errorName).toBe('InvoiceLineInvalid');
    expect(line.extras).toEqual({ field: 'items[1]', code: 'not_an_object', errors: [{ path: 'items[1]', code: 'not_an_object', message: 'items[1] must be an object, not a string' }] });
    const rest = problem({ name: 5, items: [{ n: 1, colour: 'red' }], extra: 1, note: 'abc' });
    expect(rest.errorName).toBe('InvoiceValidationFailed');
    expect(rest.extras.errors!.map((error) => `${error.path}:${error.code}`)).toEqual(['extra:unknown_field', 'name:invalid_type', 'items[0].colour:unknown_field', 'note:too_long']);
  });

  it('lists the first LISTED_FAULTS faults and says how many more there were', () => {
    const body = Object.fromEntries([['name', 'abc'], ...Array.from({ length: 90_000 }, (_, index) => [`k${index}`, 1])]);
    const many = problem(body);
    expect(many.errorName).toBe('InvoiceValidationFailed');
    const errors = many.extras.errors as { path: string }[];
    // Before: all 90,000, and the detail joined them all (10 MB answers to a 1 MB body).
    expect(errors).toHaveLength(LISTED_FAULTS);
    expect(errors.at(-1)).toMatchObject({ path: `k${LISTED_FAULTS - 1}`, code: 'unknown_field' });
    expect(many.message).toMatch(new RegExp(`^k0 is not a known member; .*; k${LISTED_FAULTS - 1} is not a known member; and ${90_000 - LISTED_FAULTS} more$`));
    expect(problem({ name: 'abc', extra: 1 }).message).toBe('extra is not a known member');
  });

  it('reports one fault per member, the first check that fails', () => {
    expect(problem({ name: 'toolong' }).extras.errors).toEqual([{ path: 'name', code: 'too_long', message: 'name must be shorter than or equal to 3 characters' }]);
  });

  it('reports a member the body leaves out as required, unless its check words its own answer', () => {
    expect(problem({ items: [{}] }).extras.errors).toEqual([{ path: 'name', code: 'required', message: 'name is required' }]);
    expect(problem({ name: 'ab', items: [{}] }).extras.errors).toEqual([{ path: 'items[0].n', code: 'required', message: 'items[0].n is required' }]);
    expect(problem({ name: 'ab', items: [{ n: 1, label: 5 }] }).extras.errors).toEqual([{ path: 'items[0].label', code: 'invalid_type', message: 'items[0].label must be a string' }]);
    expect(problem({ name: null }).extras.errors).toEqual([{ path: 'name', code: 'required', message: 'name should not be null or undefined' }]);
  });

  it('inspects a list no further than its maximum: the elements past it are not looked at', () => {
    const tooLong = problem({ items: [{ n: 1 }, { n: 2 }, 'past the maximum', {}] }, ShortListDto);
    expect(tooLong.errorName).toBe('InvoiceValidationFailed');
    expect(tooLong.extras.errors).toEqual([expect.objectContaining({ path: 'items', code: 'max_items' })]);
    // A fault within the maximum is still the line fault it was, first in the order of kinds.
    expect(problem({ items: [{ n: 1 }, {}, {}] }, ShortListDto).extras).toMatchObject({ field: 'items[1].n', code: 'required' });
  });

  it('treats __proto__ and constructor as unknown members, never as the prototype', () => {
    const body = JSON.parse('{"__proto__":{"polluted":1},"constructor":1,"toString":2,"name":"ab"}');
    expect(problem(body).extras.errors!.map((error) => error.path)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([[null], [[]], ['x'], [undefined]])('answers invalid_body for %p', (body) => {
    expect(problem(body).errorName).toBe('InvoiceInvalidBody');
  });
});
