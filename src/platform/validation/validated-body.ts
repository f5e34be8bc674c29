import { createParamDecorator, type ExecutionContext, type Type } from '@nestjs/common';
import type { Request } from 'express';
import { getMetadataStorage, ValidateBy, validateSync, type ValidationError, type ValidationOptions } from 'class-validator';
import type { ErrorName } from '../catalog/errors.js';
import { DomainException, type ProblemFieldError } from '../errors/domain.exception.js';
import { memberPath } from './member-path.js';
import { isUuid } from './uuid.pipe.js';

/** How one kind of body fault is answered. */
export interface BodyProblem {
  error: ErrorName;
  /** The check stops at its first fault: only that one is reported. */
  firstOnly?: boolean;
  /** `field` names the first fault's path; `code` repeats its code. */
  field?: boolean;
  code?: boolean;
  /** The detail: all messages joined (default), the first one, or a text made from the faults. */
  detail?: 'all' | 'first' | ((errors: ProblemFieldError[]) => string);
}

/**
 * The answers of a request-body DTO, in the order the checks apply: a body with faults of
 * several kinds is answered with the first kind that has any. A constraint chooses its kind
 * with `context: { problem: <error name> }`; unannotated constraints belong to the last kind,
 * unknown members to `unknownField` (or the last kind).
 */
export interface BodyRules {
  /** The body (or a nested object) is not a JSON object. */
  invalidBody: ErrorName;
  problems: [BodyProblem, ...BodyProblem[]];
  unknownField?: ErrorName;
  /** No body at all is accepted (an empty DTO then). */
  optional?: boolean;
}

/**
 * What a constraint may carry in its class-validator `context`: its problem kind, its `code`,
 * and a message overriding class-validator's, with `$path` (the member), `$parent` (the object
 * holding it) and `$kind` (what the value is: "a string", "null"…). `at: 'parent'` reports the
 * fault at the object rather than the member; `deferred` reports it after the object's other
 * members (checks across members).
 */
export interface ConstraintContext {
  problem?: ErrorName;
  code?: string;
  message?: string;
  at?: 'parent';
  deferred?: boolean;
}

/** A member holding an array of nested DTOs; a non-object element is a fault of `context`. */
interface NestedList {
  type: () => Type<object>;
  context: ConstraintContext;
}

const RULES = Symbol('body-rules');
const NESTED = Symbol('nested-lists');

/** Declares a class as a validated request body with the given answers. */
export function ValidatedBody(rules: BodyRules): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(RULES, rules, target);
  };
}

/** An array member whose object elements are validated as `type` (with paths like `lines[0].qty`). */
export function NestedList(type: () => Type<object>, context: ConstraintContext): PropertyDecorator {
  return (target, property) => {
    const lists: Map<string | symbol, NestedList> = Reflect.getMetadata(NESTED, target.constructor) ?? new Map();
    Reflect.defineMetadata(NESTED, new Map(lists).set(property, { type, context }), target.constructor);
  };
}

function rulesOf(type: unknown): BodyRules | undefined {
  return typeof type === 'function' ? (Reflect.getMetadata(RULES, type) as BodyRules | undefined) : undefined;
}

/** class-validator constraint → the spec's `errors[].code`. */
const CODES: Record<string, string> = {
  isDefined: 'required',
  isNotEmpty: 'required',
  isString: 'invalid_type',
  isNumber: 'invalid_type',
  isInt: 'invalid_type',
  isBoolean: 'invalid_type',
  isArray: 'invalid_type',
  isObject: 'invalid_type',
  matches: 'invalid_format',
  isUuid: 'invalid_format',
  isUrl: 'invalid_format',
  isIn: 'invalid_value',
  isEnum: 'invalid_value',
  min: 'out_of_range',
  max: 'out_of_range',
  maxLength: 'too_long',
  maxCodePoints: 'too_long',
  arrayMinSize: 'min_items',
  arrayNotEmpty: 'min_items',
  arrayMaxSize: 'max_items',
};

export interface Violation extends ProblemFieldError {
  problem: ErrorName;
  /** Set on the one entry that stands for this many more unknown members of an object, never listed. */
  unlisted?: number;
}

function describeJson(value: unknown): string {
  if (value === undefined) return 'an empty body';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface DtoShape {
  /** The members the DTO declares, in declaration order (class-validator's registration order). */
  members: string[];
  /** A list member's ArrayMaxSize. */
  maxItems: Map<string, number>;
}

const shapes = new WeakMap<Type<object>, DtoShape>();

/** What inspect needs of a DTO's declarations, read once per class: a body of many lines asks for it per line. */
function shapeOf(dto: Type<object>): DtoShape {
  let shape = shapes.get(dto);
  if (!shape) {
    const metadatas = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
    shape = {
      members: [...new Set(metadatas.map((metadata) => metadata.propertyName))],
      maxItems: new Map(metadatas.filter((metadata) => metadata.name === 'arrayMaxSize').map((metadata) => [metadata.propertyName, metadata.constraints[0] as number])),
    };
    shapes.set(dto, shape);
  }
  return shape;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One member's fault: its first failing constraint (class-validator runs them in declaration
 * order). A member the body leaves out is reported as `required` ("name is required", not "name
 * must be a string"), unless the constraint words its own answer.
 */
function memberViolation(error: ValidationError, parent: string, present: boolean, value: unknown, fallback: ErrorName): { violation: Violation; deferred: boolean } | undefined {
  const [constraint, defaultMessage] = Object.entries(error.constraints ?? {})[0] ?? [];
  if (constraint === undefined) return undefined;
  const context = (error.contexts?.[constraint] ?? {}) as ConstraintContext;
  const member = memberPath(parent, error.property);
  const path = context.at === 'parent' ? parent : member;
  const problem = context.problem ?? fallback;
  if (!present && context.code === undefined && context.message === undefined) {
    return { violation: { path, code: 'required', message: `${path} is required`, problem }, deferred: context.deferred === true };
  }
  const message =
    context.message?.replace(/\$path/g, path).replace(/\$parent/g, parent).replace(/\$kind/g, describeJson(value)) ??
    defaultMessage.replace(new RegExp(`^${escapeRegExp(error.property)}\\b`), member);
  return { violation: { path, code: context.code ?? CODES[constraint] ?? 'invalid', message, problem }, deferred: context.deferred === true };
}

/**
 * Builds the DTO instance from a JSON object and lists its faults in a stable order: unknown
 * members (in the body's order), then each declared member's first fault, nested objects in
 * place, then deferred checks across members. Only declared members are copied, as own data
 * properties, so a body's `__proto__` or `constructor` can neither reach the prototype nor
 * confuse the validator: they are unknown members like any other.
 */
function inspect<T extends object>(dto: Type<T>, body: Record<string, unknown>, path: string, rules: BodyRules, context: object, out: Violation[]): T {
  const fallback = rules.problems[rules.problems.length - 1].error;
  const { members, maxItems } = shapeOf(dto);
  const nested: Map<string, NestedList> = Reflect.getMetadata(NESTED, dto) ?? new Map();
  const instance = Object.create(dto.prototype) as T;
  Object.defineProperty(instance, VALIDATION_CONTEXT, { value: context });
  // Past the listed ones, unknown members are only counted: a 1 MB body can hold 90,000, and
  // making a fault of each of 60,000 cost 30-70 ms (docs/benchmarks.md).
  let unknown = 0;
  for (const key of Object.keys(body)) {
    if (members.includes(key)) {
      Object.defineProperty(instance, key, { value: body[key], enumerable: true, writable: true, configurable: true });
      continue;
    }
    unknown += 1;
    if (unknown <= LISTED_FAULTS) {
      const at = memberPath(path, key);
      out.push({ path: at, code: 'unknown_field', message: `${at} is not a known member`, problem: rules.unknownField ?? fallback });
    }
  }
  if (unknown > LISTED_FAULTS) {
    out.push({ path, code: 'unknown_field', message: '', problem: rules.unknownField ?? fallback, unlisted: unknown - LISTED_FAULTS });
  }
  const errors = new Map(validateSync(instance, VALIDATOR_OPTIONS).map((error) => [error.property, error]));
  const deferred: Violation[] = [];
  for (const member of members) {
    const present = Object.hasOwn(body, member);
    const value = present ? body[member] : undefined;
    const error = errors.get(member);
    const found = error && memberViolation(error, path, present, value, fallback);
    if (found) (found.deferred ? deferred : out).push(found.violation);
    const list = nested.get(member);
    if (!list || !Array.isArray(value)) continue;
    // A list longer than its maximum is refused for that already; its elements past the maximum
    // are not inspected, so a 1 MB body of 300,000 empty lines costs what 500 lines cost, not
    // seconds of every company's time.
    const elements = value.slice(0, maxItems.get(member)).map((element, index) => {
      const at = memberPath(memberPath(path, member), index);
      if (isJsonObject(element)) return inspect(list.type(), element, at, rules, context, out);
      const message = (list.context.message ?? '$path must be an object').replace(/\$path/g, at).replace(/\$kind/g, describeJson(element));
      out.push({ path: at, code: list.context.code ?? 'invalid_type', message, problem: list.context.problem ?? fallback });
      return element;
    });
    Object.defineProperty(instance, member, { value: elements, enumerable: true, writable: true, configurable: true });
  }
  out.push(...deferred);
  return instance;
}

/**
 * Faults listed in one problem. A body of up to 1 MB can hold 90,000 unknown members: listed
 * all, they made a 10 MB answer and a second of the process's time, for a client that reads the first.
 */
export const LISTED_FAULTS = 50;

/**
 * The one exception factory of request bodies: the violations of the first problem kind (in
 * the DTO's order) that has any, as that kind's problem with `errors[]` of `{path, code, message}`:
 * the first LISTED_FAULTS, the detail saying how many more there were.
 */
function bodyProblem(violations: Violation[], rules: BodyRules): DomainException | undefined {
  for (const kind of rules.problems) {
    const matching = violations.filter((violation) => violation.problem === kind.error);
    if (matching.length === 0) continue;
    const listable = matching.filter((violation) => violation.unlisted === undefined);
    const errors = listable.slice(0, kind.firstOnly ? 1 : LISTED_FAULTS).map(({ path, code, message }) => ({ path, code, message }));
    const first = errors[0];
    const faults = matching.reduce((count, violation) => count + (violation.unlisted ?? 1), 0);
    const unlisted = kind.firstOnly ? 0 : faults - errors.length;
    const listed = errors.map((error) => error.message).join('; ') + (unlisted > 0 ? `; and ${unlisted} more` : '');
    const detail = typeof kind.detail === 'function' ? kind.detail(errors) : kind.detail === 'first' ? first.message : listed;
    return new DomainException(kind.error, detail, {
      ...(kind.field ? { field: first.path } : {}),
      ...(kind.code ? { code: first.code } : {}),
      errors,
    });
  }
  return undefined;
}

/** Each member reports its first failing constraint only, so one fault is not reported as three. */
const VALIDATOR_OPTIONS = { forbidUnknownValues: false, stopAtFirstError: true, validationError: { target: false, value: false } };

/** Where custom constraints find what the caller passed to `validateBody` (e.g. today's date). */
const VALIDATION_CONTEXT = Symbol('validation-context');

export function validationContext<T extends object>(object: object): Partial<T> {
  return ((object as Record<symbol, unknown>)[VALIDATION_CONTEXT] ?? {}) as Partial<T>;
}

/** Validates `body` against the DTO class and returns the DTO instance; throws the DTO's problem. */
export function validateBody<T extends object>(dto: Type<T>, body: unknown, context: object = {}): T {
  const rules = rulesOf(dto);
  if (!rules) throw new Error(`${dto.name} is not a @ValidatedBody()`);
  if (body === undefined && rules.optional) return Object.create(dto.prototype) as T;
  if (!isJsonObject(body)) throw new DomainException(rules.invalidBody, `The request body must be a JSON object, not ${describeJson(body)}.`);
  const violations: Violation[] = [];
  const instance = inspect(dto, body, '', rules, context, violations);
  const problem = bodyProblem(violations, rules);
  if (problem) throw problem;
  return instance;
}

/**
 * The request body, validated as `dto` (a `@ValidatedBody()` class) through `validateBody`. A
 * malformed path id (every path parameter is one) is answered first, by its UuidPipe, as the
 * documented check order says: the body is then not judged at all.
 */
const validBody = createParamDecorator((dto: Type<object>, context: ExecutionContext): object | undefined => {
  const request = context.switchToHttp().getRequest<Request>();
  if (Object.values(request.params ?? {}).some((value) => !isUuid(value))) return undefined;
  return validateBody(dto, request.body);
});

/** The body DTO a handler takes, for refuseUnparsableBody. */
const BODY_DTO = Symbol('body-dto');

export function ValidBody(dto: Type<object>): ParameterDecorator {
  return (target, key, index) => {
    validBody(dto)(target, key, index);
    if (key !== undefined) Reflect.defineMetadata(BODY_DTO, dto, (target as Record<string | symbol, object>)[key]);
  };
}

/**
 * A body that is not JSON at all (or not UTF-8) is not a JSON object either: answered as the
 * route's DTO answers one (`invalidBody`: the invoice routes' `invalid_body`, spec 7), on a route
 * without one as `malformed_json`. Called first of all for a routed request (AuthGuard), so before
 * authentication, as the JSON parser's own refusal was. `unparsable`: why the body could not be read.
 */
export function refuseUnparsableBody(unparsable: string | undefined, handler: object): void {
  if (unparsable === undefined) return;
  const invalidBody = rulesOf(Reflect.getMetadata(BODY_DTO, handler))?.invalidBody;
  throw new DomainException(invalidBody ?? 'MalformedJson', invalidBody ? `The request body must be a JSON object; ${unparsable.replace(/^The request body /, 'it ')}` : unparsable);
}

/**
 * Applies property decorators in the order listed. class-validator runs a member's checks in the
 * order they were registered and reports the first that fails, so the list reads as the order
 * of the checks (stacked decorators would register bottom-up).
 */
export function Checks(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, property) => decorators.forEach((decorator) => decorator(target, property));
}

/** A string of at most `max` characters, counted in code points (an emoji is one). */
export function MaxCodePoints(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxCodePoints',
      constraints: [max],
      validator: { validate: (value) => typeof value === 'string' && [...value].length <= max, defaultMessage: () => `$property must be at most ${max} characters` },
    },
    options,
  );
}
