import { DomainException } from '../platform/errors/domain.exception.js';
import { isUuid } from '../platform/validation/uuid.pipe.js';
import { addDays, checkCalendarDate } from './calendar-date.js';
import {
  type FieldError,
  InvoiceInvalidBodyException,
  InvoiceLineInvalidException,
  InvoiceRequiredException,
  InvoiceValidationFailedException,
} from './finance.errors.js';
import { type Decimal, decimalOf, lineNet, MAX_MINOR, MAX_QTY, MAX_TAX_RATE, withinMaxMinor } from './invoice-totals.js';

/**
 * Hand-written validation of the invoice write bodies. The spec gives each kind of fault its
 * own detail key, and a body with several faults answers with the first stage that fails:
 *
 *   1. invalid_body       the body is not a JSON object
 *   2. required           customer_id, currency or lines absent or null (create only)
 *   3. line_invalid       the first line that is not an object, or whose qty, unit_price_minor
 *                         or tax_rate is missing, not a finite number, negative, not an integer
 *                         (unit_price_minor) or beyond its limit, or whose qty × unit_price_minor
 *                         exceeds the amount limit
 *   4. validation_failed  every other member fault at once, in `errors[]`
 *
 * The service then checks, in order: currency enabled, references (customer, products, tax
 * rates), a line's tax_rate against its tax_rate_id (line_invalid), and the invoice total
 * (create_failed). Pure functions: no database, so the rules are unit-tested directly.
 */
export const CREATE_MEMBERS = ['customer_id', 'currency', 'lines', 'issue_date', 'due_date', 'notes'] as const;
export const REQUIRED_MEMBERS = ['customer_id', 'currency', 'lines'] as const;
export const LINE_MEMBERS = ['description', 'qty', 'unit_price_minor', 'tax_rate', 'product_id', 'tax_rate_id'] as const;
export const WRITABLE_FIELDS = ['customer_id', 'currency', 'issue_date', 'due_date', 'notes'] as const;
export const VOID_MEMBERS = ['reason'] as const;

export const MAX_LINES = 500;
export const MAX_NOTES_LENGTH = 2000;
export const MAX_DESCRIPTION_LENGTH = 1000;
export const MAX_VOID_REASON_LENGTH = 500;
export const PAYMENT_TERM_DAYS = 14;
export const MIN_DATE = '1900-01-01';
export const MAX_DATE = '2999-12-31';

const CURRENCY = /^[A-Z]{3}$/;

export interface InvoiceLineInput {
  description: string;
  qty: Decimal;
  unitPriceMinor: bigint;
  /** null when the line names a tax_rate_id and leaves the rate to that record. */
  taxRate: Decimal | null;
  productId: string | null;
  taxRateId: string | null;
}

export interface CreateInvoiceInput {
  customerId: string;
  currency: string;
  issueDate: string;
  dueDate: string;
  notes: string | null;
  lines: InvoiceLineInput[];
}

export type InvoiceChanges = Partial<{
  customerId: string;
  currency: string;
  issueDate: string;
  dueDate: string;
  notes: string | null;
}>;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'an empty body';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** An own member only: a body's `constructor` or `toString` is never read from the prototype. */
function member(object: JsonObject, name: string): unknown {
  return Object.hasOwn(object, name) ? object[name] : undefined;
}

const absent = (value: unknown): boolean => value === undefined || value === null;

function requireObject(body: unknown): JsonObject {
  if (!isObject(body)) throw new InvoiceInvalidBodyException(describe(body));
  return body;
}

function unknownMembers(object: JsonObject, known: readonly string[], prefix: string, errors: FieldError[]): void {
  for (const name of Object.keys(object)) {
    if (!known.includes(name)) errors.push({ path: `${prefix}${name}`, code: 'unknown_field', message: `${prefix}${name} is not a known member` });
  }
}

const codePoints = (text: string): number => [...text].length;

/**
 * Parses POST /v1/invoices. `today` is the company's date (UTC): the default issue_date, and
 * the base of the default due_date (issue_date + 14 days).
 */
export function parseCreateInvoice(body: unknown, today: string): CreateInvoiceInput {
  const object = requireObject(body);

  const missing = REQUIRED_MEMBERS.filter((name) => absent(member(object, name)));
  if (missing.length > 0) throw new InvoiceRequiredException(missing);

  const rawLines = member(object, 'lines');
  const amounts = Array.isArray(rawLines) ? rawLines.map((line, index) => lineAmounts(line, index)) : [];

  const errors: FieldError[] = [];
  unknownMembers(object, CREATE_MEMBERS, '', errors);
  const customerId = uuid(member(object, 'customer_id'), 'customer_id', errors);
  const currency = currencyCode(member(object, 'currency'), 'currency', errors);
  const lines = lineList(rawLines, amounts, errors);
  const givenIssueDate = optionalDate(member(object, 'issue_date'), 'issue_date', errors);
  const givenDueDate = optionalDate(member(object, 'due_date'), 'due_date', errors);
  const notes = notesText(member(object, 'notes'), errors);

  const issueDate = givenIssueDate === undefined ? today : givenIssueDate;
  const dueDate = givenDueDate === undefined && issueDate !== null ? addDays(issueDate, PAYMENT_TERM_DAYS) : givenDueDate;
  if (issueDate !== null && dueDate !== null && dueDate !== undefined) dueNotBeforeIssue(issueDate, dueDate, errors);
  if (errors.length > 0) throw new InvoiceValidationFailedException(errors);

  return { customerId: customerId!, currency: currency!, issueDate: issueDate!, dueDate: dueDate!, notes, lines };
}

/** Parses PATCH /v1/invoices/{id}: only the writable header fields; null clears `notes` only. */
export function parseInvoiceChanges(body: unknown): InvoiceChanges {
  const object = requireObject(body);
  const errors: FieldError[] = [];
  unknownMembers(object, WRITABLE_FIELDS, '', errors);
  const changes: InvoiceChanges = {};
  if (Object.hasOwn(object, 'customer_id')) changes.customerId = uuid(object.customer_id, 'customer_id', errors, true) ?? undefined;
  if (Object.hasOwn(object, 'currency')) changes.currency = currencyCode(object.currency, 'currency', errors, true) ?? undefined;
  if (Object.hasOwn(object, 'issue_date')) changes.issueDate = date(object.issue_date, 'issue_date', errors) ?? undefined;
  if (Object.hasOwn(object, 'due_date')) changes.dueDate = date(object.due_date, 'due_date', errors) ?? undefined;
  if (Object.hasOwn(object, 'notes')) changes.notes = notesText(object.notes, errors);
  if (errors.length > 0) throw new InvoiceValidationFailedException(errors);
  if (Object.keys(object).length === 0) {
    throw new DomainException('InvoiceNoWritableFields', `The body names none of the writable fields: ${WRITABLE_FIELDS.join(', ')}.`);
  }
  return changes;
}

/** The rule on the invoice as it will be: due_date must not be before issue_date. */
export function assertDueNotBeforeIssue(issueDate: string, dueDate: string): void {
  const errors: FieldError[] = [];
  dueNotBeforeIssue(issueDate, dueDate, errors);
  if (errors.length > 0) throw new InvoiceValidationFailedException(errors);
}

/** Parses the optional body of POST /v1/invoices/{id}/void: `{ "reason": string }`. */
export function parseVoidRequest(body: unknown): { reason: string | null } {
  if (body === undefined) return { reason: null };
  const object = requireObject(body);
  const errors: FieldError[] = [];
  unknownMembers(object, VOID_MEMBERS, '', errors);
  const reason = member(object, 'reason');
  let parsed: string | null = null;
  if (typeof reason === 'string') {
    if (codePoints(reason) > MAX_VOID_REASON_LENGTH) {
      errors.push({ path: 'reason', code: 'too_long', message: `reason must be at most ${MAX_VOID_REASON_LENGTH} characters` });
    }
    parsed = reason;
  } else if (!absent(reason)) {
    errors.push({ path: 'reason', code: 'invalid_type', message: 'reason must be a string' });
  }
  if (errors.length > 0) throw new InvoiceValidationFailedException(errors);
  return { reason: parsed };
}

interface LineAmountInput {
  qty: Decimal;
  unitPriceMinor: bigint;
  taxRate: Decimal | null;
}

/** Stage 3: the amounts of one line, or line_invalid for the first fault. */
function lineAmounts(line: unknown, index: number): LineAmountInput {
  const at = `lines[${index}]`;
  const fail = (path: string, code: string, message: string): never => {
    throw new InvoiceLineInvalidException({ path, code, message });
  };
  if (!isObject(line)) return fail(at, 'not_an_object', `${at} must be an object, not ${describe(line)}`);

  const number = (name: string, max: number, integer: boolean): Decimal | null => {
    const value = member(line, name);
    const path = `${at}.${name}`;
    if (absent(value)) return null;
    if (typeof value !== 'number') return fail(path, 'not_a_number', `${path} must be a number`);
    if (value < 0) return fail(path, 'negative', `${path} must not be negative`);
    if (integer && Number.isFinite(value) && !Number.isInteger(value)) return fail(path, 'not_an_integer', `${path} must be a whole number`);
    if (!(value <= max)) return fail(path, 'out_of_range', `${path} must be at most ${max}`);
    return decimalOf(value);
  };

  const qty = number('qty', MAX_QTY, false) ?? fail(`${at}.qty`, 'required', `${at}.qty is required`);
  const price = number('unit_price_minor', MAX_MINOR, true) ?? fail(`${at}.unit_price_minor`, 'required', `${at}.unit_price_minor is required`);
  const taxRate = number('tax_rate', MAX_TAX_RATE, false);
  if (taxRate === null && absent(member(line, 'tax_rate_id'))) {
    fail(`${at}.tax_rate`, 'required', `${at} needs a tax_rate or a tax_rate_id`);
  }
  const unitPriceMinor = price.units;
  if (!withinMaxMinor(lineNet(qty, unitPriceMinor))) {
    fail(at, 'out_of_range', `${at}: qty × unit_price_minor exceeds ${MAX_MINOR}`);
  }
  return { qty, unitPriceMinor, taxRate };
}

/** Stage 4 for `lines` and each line's remaining members. */
function lineList(value: unknown, amounts: LineAmountInput[], errors: FieldError[]): InvoiceLineInput[] {
  if (!Array.isArray(value)) {
    errors.push({ path: 'lines', code: 'invalid_type', message: 'lines must be an array' });
    return [];
  }
  if (value.length === 0) errors.push({ path: 'lines', code: 'min_items', message: 'lines must hold at least one line' });
  if (value.length > MAX_LINES) errors.push({ path: 'lines', code: 'max_items', message: `lines must hold at most ${MAX_LINES} lines` });
  return value.map((line: JsonObject, index) => {
    const at = `lines[${index}]`;
    unknownMembers(line, LINE_MEMBERS, `${at}.`, errors);
    return {
      ...amounts[index],
      description: description(member(line, 'description'), `${at}.description`, errors),
      productId: optionalUuid(member(line, 'product_id'), `${at}.product_id`, errors),
      taxRateId: optionalUuid(member(line, 'tax_rate_id'), `${at}.tax_rate_id`, errors),
    };
  });
}

function description(value: unknown, path: string, errors: FieldError[]): string {
  if (absent(value) || (typeof value === 'string' && value.trim() === '')) {
    errors.push({ path, code: 'required', message: `${path} is required and must not be blank` });
  } else if (typeof value !== 'string') {
    errors.push({ path, code: 'invalid_type', message: `${path} must be a string` });
  } else if (codePoints(value) > MAX_DESCRIPTION_LENGTH) {
    errors.push({ path, code: 'too_long', message: `${path} must be at most ${MAX_DESCRIPTION_LENGTH} characters` });
  } else {
    return value;
  }
  return '';
}

/**
 * The value if it is a string, or null after recording why not. `nullIsWrong` where a PATCH
 * would otherwise clear a required member: null then gets its own message.
 */
function stringValue(value: unknown, path: string, errors: FieldError[], nullIsWrong: boolean): string | null {
  if (value === null && nullIsWrong) {
    errors.push({ path, code: 'invalid_type', message: `${path} cannot be null` });
    return null;
  }
  if (typeof value !== 'string') {
    errors.push({ path, code: 'invalid_type', message: `${path} must be a string` });
    return null;
  }
  return value;
}

function uuid(value: unknown, path: string, errors: FieldError[], nullIsWrong = false): string | null {
  const text = stringValue(value, path, errors, nullIsWrong);
  if (text === null) return null;
  if (!isUuid(text)) {
    errors.push({ path, code: 'invalid_format', message: `${path} must be a UUID` });
    return null;
  }
  return text.toLowerCase();
}

function optionalUuid(value: unknown, path: string, errors: FieldError[]): string | null {
  return absent(value) ? null : uuid(value, path, errors);
}

function currencyCode(value: unknown, path: string, errors: FieldError[], nullIsWrong = false): string | null {
  const text = stringValue(value, path, errors, nullIsWrong);
  if (text === null) return null;
  if (!CURRENCY.test(text)) {
    errors.push({ path, code: 'invalid_format', message: `${path} must be three upper-case letters (ISO 4217)` });
    return null;
  }
  return text;
}

/** undefined when absent (the default applies), null when present but invalid. */
function optionalDate(value: unknown, path: string, errors: FieldError[]): string | null | undefined {
  return value === undefined ? undefined : date(value, path, errors);
}

/** The date, or null after recording why it is not one. */
function date(value: unknown, path: string, errors: FieldError[]): string | null {
  if (typeof value !== 'string') {
    errors.push({ path, code: 'invalid_type', message: `${path} must be a date string (YYYY-MM-DD)` });
    return null;
  }
  const check = checkCalendarDate(value);
  if (check === 'ok' && value >= MIN_DATE && value <= MAX_DATE) return value;
  if (check === 'invalid_format') errors.push({ path, code: 'invalid_format', message: `${path} must be YYYY-MM-DD` });
  else if (check === 'invalid_date') errors.push({ path, code: 'invalid_date', message: `${path} is not a calendar date` });
  else errors.push({ path, code: 'out_of_range', message: `${path} must be between ${MIN_DATE} and ${MAX_DATE}` });
  return null;
}

function notesText(value: unknown, errors: FieldError[]): string | null {
  if (absent(value)) return null;
  if (typeof value !== 'string') {
    errors.push({ path: 'notes', code: 'invalid_type', message: 'notes must be a string or null' });
    return null;
  }
  if (codePoints(value) > MAX_NOTES_LENGTH) {
    errors.push({ path: 'notes', code: 'too_long', message: `notes must be at most ${MAX_NOTES_LENGTH} characters` });
    return null;
  }
  return value;
}

function dueNotBeforeIssue(issueDate: string, dueDate: string, errors: FieldError[]): void {
  if (dueDate < issueDate) errors.push({ path: 'due_date', code: 'due_before_issue', message: `due_date ${dueDate} is before issue_date ${issueDate}` });
}
