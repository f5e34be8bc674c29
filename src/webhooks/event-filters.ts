import { type EventType, isEventType } from '../platform/catalog/event-types.js';
import { DomainException } from '../platform/errors/domain.exception.js';
import { rfc3339ToPostgres } from '../platform/validation/rfc3339.js';
import { unknownEventTypes } from './subscriptions.js';

/**
 * The query filters of the events feed and the deliveries list. Each is one parameter given
 * once: a repeated one (an array to express) or a bracketed one (an object) is 422
 * `invalid_input`, as `limit` and `cursor` are. An empty one is a value, and refused as one.
 */
export function singleParam(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new DomainException('InvalidInput', `${name} must be given once.`, { field: name, code: 'invalid_format' });
  return value;
}

/** Exact catalogue types, one or more, without repeats; any unknown one is 422 `unknown_event_type` naming every offender. */
export function eventTypesParam(value: unknown, name: string): EventType[] | undefined {
  const raw = singleParam(value, name);
  if (raw === undefined) return undefined;
  const types = [...new Set(raw.split(',').map((type) => type.trim()))];
  const unknown = types.filter((type) => !isEventType(type));
  if (unknown.length > 0) throw unknownEventTypes(unknown, name);
  return types as EventType[];
}

/**
 * An RFC 3339 date-time with a time zone; a bare date or other text is 422 `invalid_since`, as on
 * replay_failed. Answered as PostgreSQL's text, to the microsecond: a Date would keep
 * milliseconds only, and rows are created to the microsecond, so `.123456` would also match a
 * row of `.123100`.
 */
export function sinceParam(value: unknown, name = 'since'): string | undefined {
  const raw = singleParam(value, name);
  if (raw === undefined) return undefined;
  const since = rfc3339ToPostgres(raw);
  if (!since) throw new DomainException('WebhookInvalidSince', `${name} must be an RFC 3339 date-time such as 2026-05-16T08:00:00Z.`, { field: name });
  return since;
}
