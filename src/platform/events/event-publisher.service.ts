import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EventData, EventType } from '../catalog/event-types.js';
import type { TenantScope } from '../tenancy/tenant-data.js';
import { EventDataCheck } from './event-data-check.js';
import type { EventEnvelope } from './event-envelope.js';

/** Data that breaks its event type's schema: a programming error, never the caller's input. */
export class EventDataMismatch extends Error {
  constructor(type: EventType, fault: string) {
    super(`event data does not match the schema of ${type}: ${fault}`);
    this.name = 'EventDataMismatch';
  }
}

/**
 * Publishes events through the transactional outbox: callers pass the tenant scope of the
 * transaction that makes the change, so the event exists exactly when the change does. The data
 * is typed by the catalogue and checked against the type's schema before it is written, so no
 * event of the services' own changes breaks its published schema; only `event:emit`'s, written
 * as given (publishAsGiven), may.
 */
@Injectable()
export class EventPublisher {
  constructor(@Inject(EventDataCheck) private readonly check: EventDataCheck) {}

  async publish<T extends EventType>(scope: TenantScope, type: T, data: EventData<T>): Promise<EventEnvelope> {
    const fault = await this.check.fault(type, data);
    if (fault !== null) throw new EventDataMismatch(type, fault);
    return this.publishAsGiven(scope, type, data);
  }

  /**
   * Publishes data unchecked against its type's schema: only for `event:emit`, the admin CLI
   * standing in for the applications, whose callers (tests outside this repository among them)
   * cannot know the schemas: the specification shows no payloads.
   */
  async publishAsGiven(scope: TenantScope, type: EventType, data: object): Promise<EventEnvelope> {
    const envelope: EventEnvelope = { id: randomUUID(), type, created_at: '', data };
    const [row] = await scope.hotQuery<{ created_at: string }>('events-insert', INSERT_EVENT_SQL, [envelope.id, type, JSON.stringify(envelope), PUBLISHING_LOCK_NAMESPACE]);
    envelope.created_at = row.created_at;
    return envelope;
  }
}

/**
 * For a change that deliveries are judged by at each event's time (a webhook endpoint created,
 * paused, resumed, deleted or disabled, or its event types changed, stamped with
 * clock_timestamp() after this): holds the
 * company's publishing lock exclusively until the transaction ends. Every event stamped before
 * the change has committed by then, and every later one is stamped after the change commits, so
 * the relay never judges an event by a change it cannot see yet (an event between a resume's
 * stamp and its commit was judged by the pause). The company's publishing waits meanwhile, so
 * take it last, just before the change, after the rows it changes are locked: every caller takes
 * rows first, so a pause and a key's revocation (or an auto-disable) never wait for each other
 * in opposite orders.
 */
export async function excludePublishing(scope: TenantScope): Promise<void> {
  await scope.query('SELECT pg_advisory_xact_lock($2::int, hashtext($1::uuid::text))', [PUBLISHING_LOCK_NAMESPACE]);
}

/** SQL: the envelope `envelope` (a jsonb parameter) with its `created_at` the time `at`, to the millisecond (RFC 3339, UTC), as a receiver gets it. */
export function envelopeAt(envelope: string, at: string): string {
  return `jsonb_set(${envelope}::jsonb, '{created_at}', to_jsonb(to_char(${at} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))`;
}

/**
 * The first key of the shared transaction-level advisory lock an event's transaction holds on
 * its company from the insert until it ends (the second is the company id's hash): the events
 * feed reads who holds it to find the company's events that may still commit (PUBLISHING_HORIZON_SQL).
 */
export const PUBLISHING_LOCK_NAMESPACE = 0x45_56_54; // "EVT"

/**
 * Inserts the event with its company's publishing lock. Its time is the database's: the row's
 * `created_at`, and the envelope's to the millisecond (RFC 3339, as a receiver gets it), so the
 * feed filters and orders on the time a client sees, on the clock the feed's horizon reads. The
 * time is read after the lock is granted (each subquery is a fence the one above it reads from),
 * so a horizon that does not see the lock was read before this event's time.
 */
const INSERT_EVENT_SQL = `INSERT INTO events (tenant_id, id, type, envelope, created_at)
  SELECT $1::uuid, $2::uuid, $3::text, ${envelopeAt('$4', 'now.at')}, now.at
    FROM (SELECT clock_timestamp() AS at FROM (SELECT pg_advisory_xact_lock_shared($5::int, hashtext($1::uuid::text)) OFFSET 0) locked OFFSET 0) now
  RETURNING envelope->>'created_at' AS created_at`;

/**
 * The feed's horizon for a company: the time (UTC, to the microsecond, the cursor's form) below
 * which every event it will ever have is committed. Events are inserted in open transactions,
 * so one inserted earlier can commit later than one already listed; below the horizon that can
 * no longer happen. It is now when no transaction holds the company's publishing lock (tried
 * exclusively for the length of this statement: cheap, and a publisher locking after it reads a
 * later time), else the start of the oldest holder (its events are no older), read from
 * `pg_locks` after the clock, so a holder it misses took the lock, and read its time, after the
 * clock. A holder with no transaction start by the time its activity is read has committed
 * since (or locked after the clock), and does not count; one whose start cannot be read (another
 * database role without `pg_read_all_stats`: `state` null; `track_activities` off: `disabled`)
 * makes it -infinity: an empty first page rather than one an older event could later appear
 * below. Read in its own statement before the page's, so that a transaction that ends between
 * the two is either seen holding the lock or seen committed.
 */
export const PUBLISHING_HORIZON_SQL = `SELECT to_char(CASE WHEN pg_try_advisory_xact_lock($2::int, hashtext($1::uuid::text)) THEN now.at ELSE least(now.at, (
         SELECT min(CASE WHEN a.xact_start IS NOT NULL THEN a.xact_start WHEN a.state IS NULL OR a.state = 'disabled' THEN '-infinity' END) FROM pg_stat_activity a
          WHERE a.pid IN (SELECT l.pid FROM pg_locks l
                           WHERE l.locktype = 'advisory' AND l.granted AND l.mode = 'ShareLock' AND l.classid = $2::int::oid
                             AND l.objid = hashtext($1::uuid::text)::oid AND l.objsubid = 2
                             AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())))) END AT TIME ZONE 'UTC',
       'YYYY-MM-DD"T"HH24:MI:SS.US') AS horizon
  FROM (SELECT clock_timestamp() AS at OFFSET 0) now`;
