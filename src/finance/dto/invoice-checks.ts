import { IsDefined, IsNumber, IsOptional, IsString, Matches, Max, Min, ValidateBy, ValidateIf, type ValidationArguments } from 'class-validator';
import type { ErrorName } from '../../platform/catalog/errors.js';
import { Checks, MaxCodePoints, validationContext } from '../../platform/validation/validated-body.js';
import { addDays, checkCalendarDate, todayUtc } from '../calendar-date.js';
import { MAX_DATE, MIN_DATE, PAYMENT_TERM_DAYS } from '../invoice-limits.js';
import { decimalOf, lineNet, MAX_MINOR, withinMaxMinor } from '../invoice-totals.js';

/**
 * The checks of invoice write bodies, as class-validator decorators carrying their problem
 * kind and code. A body with faults of several kinds answers with the first kind in this
 * order: `required` → `line_invalid` (the first faulty line, its first fault) →
 * `validation_failed` (every other fault).
 */
export const REQUIRED: ErrorName = 'InvoiceRequired';
export const LINE_INVALID: ErrorName = 'InvoiceLineInvalid';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CURRENCY = /^[A-Z]{3}$/;

export const absent = (value: unknown): boolean => value === undefined || value === null;
const present = (_: object, value: unknown) => value !== undefined;
/** class-validator keeps a constraint's context only when its message is not empty; the contexts here carry the real one. */
const INVALID = () => '$property is invalid';

/** One of customer_id, currency, lines on create: absent or null is `required`. */
export const RequiredMember = () => IsDefined({ context: { problem: REQUIRED, message: '$path is required' } });

/** On PATCH a member that is sent must not be null. */
const NotNull = () => IsDefined({ context: { code: 'invalid_type', message: '$path cannot be null' } });
const AString = () => IsString({ context: { message: '$path must be a string' } });

export const Uuid = () => Checks(AString(), Matches(UUID, { context: { code: 'invalid_format', message: '$path must be a UUID' } }));
export const CurrencyCode = () =>
  Checks(AString(), Matches(CURRENCY, { context: { code: 'invalid_format', message: '$path must be three upper-case letters (ISO 4217)' } }));
export const OptionalUuid = () => Checks(IsOptional(), Uuid());
export const PatchUuid = () => Checks(ValidateIf(present), NotNull(), Uuid());
export const PatchCurrency = () => Checks(ValidateIf(present), NotNull(), CurrencyCode());

/** A real `YYYY-MM-DD` date between 1900-01-01 and 2999-12-31. */
const CalendarDate = () =>
  Checks(
    IsString({ context: { message: '$path must be a date string (YYYY-MM-DD)' } }),
    ValidateBy({ name: 'dateFormat', validator: { validate: (value: string) => checkCalendarDate(value) !== 'invalid_format', defaultMessage: INVALID } }, { context: { code: 'invalid_format', message: '$path must be YYYY-MM-DD' } }),
    ValidateBy({ name: 'calendarDate', validator: { validate: (value: string) => checkCalendarDate(value) === 'ok', defaultMessage: INVALID } }, { context: { code: 'invalid_date', message: '$path is not a calendar date' } }),
    ValidateBy({ name: 'dateRange', validator: { validate: (value: string) => value >= MIN_DATE && value <= MAX_DATE, defaultMessage: INVALID } }, {
      context: { code: 'out_of_range', message: `$path must be between ${MIN_DATE} and ${MAX_DATE}` },
    }),
  );
/** A date member that may be left out (its default applies) but not null. */
export const OptionalDate = () => Checks(ValidateIf(present), CalendarDate());

const validDate = (value: unknown): value is string => typeof value === 'string' && checkCalendarDate(value) === 'ok' && value >= MIN_DATE && value <= MAX_DATE;

/**
 * The issue date a create body will have: the one sent if it is valid, today (the caller's
 * `today`, else UTC today) if none was sent, null if the one sent is invalid.
 */
function effectiveIssueDate(issueDate: unknown, today: string): string | null {
  if (issueDate === undefined) return today;
  return validDate(issueDate) ? issueDate : null;
}

/** due_date must not be before the (possibly default) issue_date; reported after the other members. */
export const DueNotBeforeIssue = () =>
  ValidateBy(
    {
      name: 'dueNotBeforeIssue',
      validator: {
        validate: (due: unknown, args?: ValidationArguments) => {
          const issue = effectiveIssueDate((args!.object as { issue_date?: unknown }).issue_date, todayOf(args!.object));
          return issue === null || !validDate(due) || due >= issue;
        },
        defaultMessage: (args?: ValidationArguments) =>
          `due_date ${String(args!.value)} is before issue_date ${effectiveIssueDate((args!.object as { issue_date?: unknown }).issue_date, todayOf(args!.object))}`,
      },
    },
    { context: { code: 'due_before_issue', deferred: true } },
  );

function todayOf(object: object): string {
  return validationContext<{ today: string }>(object).today ?? todayUtc();
}

/** The default due date: issue_date + 14 days, at most the last date the API accepts (so it can be sent back unchanged). */
export function defaultDueDate(issueDate: string): string {
  const due = addDays(issueDate, PAYMENT_TERM_DAYS);
  return due > MAX_DATE ? MAX_DATE : due;
}

/** Optional text (null or absent: none) of at most `max` characters. */
export const OptionalText = (max: number, typeMessage: string) =>
  Checks(
    ValidateIf((_: object, value: unknown) => !absent(value)),
    IsString({ context: { message: typeMessage } }),
    MaxCodePoints(max, { context: { message: `$path must be at most ${max} characters` } }),
  );

/**
 * An amount of a line (`line_invalid` stage): required, a number, not negative, whole where
 * `integer`, at most `max`.
 */
export const LineAmount = (max: number, integer: boolean, required = IsDefined({ context: { problem: LINE_INVALID, code: 'required', message: '$path is required' } })) =>
  Checks(
    required,
    IsNumber({ allowNaN: true, allowInfinity: true }, { context: { problem: LINE_INVALID, code: 'not_a_number', message: '$path must be a number' } }),
    Min(0, { context: { problem: LINE_INVALID, code: 'negative', message: '$path must not be negative' } }),
    ...(integer
      ? [
          ValidateBy(
            { name: 'wholeNumber', validator: { validate: (value: number) => !Number.isFinite(value) || Number.isInteger(value), defaultMessage: INVALID } },
            { context: { problem: LINE_INVALID, code: 'not_an_integer', message: '$path must be a whole number' } },
          ),
        ]
      : []),
    Max(max, { context: { problem: LINE_INVALID, code: 'out_of_range', message: `$path must be at most ${max}` } }),
  );

/** tax_rate: required unless the line names a tax_rate_id (then the record supplies the rate). */
export const LineTaxRate = (max: number) =>
  Checks(
    ValidateIf((line: { tax_rate?: unknown; tax_rate_id?: unknown }) => !absent(line.tax_rate) || absent(line.tax_rate_id)),
    LineAmount(max, false, IsDefined({ context: { problem: LINE_INVALID, code: 'required', message: '$parent needs a tax_rate or a tax_rate_id' } })),
  );

/** qty × unit_price_minor within the amount limit, once both are valid; reported at the line after its other checks. */
export const LineNetWithinLimit = () =>
  ValidateBy(
    {
      name: 'lineNetWithinLimit',
      validator: {
        validate: (_: unknown, args?: ValidationArguments) => {
          const { qty, unit_price_minor: price } = args!.object as { qty?: unknown; unit_price_minor?: unknown };
          if (!isAmount(qty) || !isAmount(price) || !Number.isInteger(price)) return true;
          return withinMaxMinor(lineNet(decimalOf(qty), decimalOf(price).units));
        },
        defaultMessage: INVALID,
      },
    },
    { context: { problem: LINE_INVALID, code: 'out_of_range', at: 'parent', deferred: true, message: `$parent: qty × unit_price_minor exceeds ${MAX_MINOR}` } },
  );

const isAmount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;
