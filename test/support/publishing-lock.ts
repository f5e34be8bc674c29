import type { DataSource } from 'typeorm';
import { PUBLISHING_LOCK_NAMESPACE } from '../../src/platform/events/event-publisher.service.js';
import { waitFor } from './wait-for.js';

/**
 * An event transaction of the company in flight, as far as locks go: the company's publishing
 * lock held shared (as an event's insert holds it until its transaction ends) on a session of
 * its own, until `finish`. `lockWaits(n)` waits until n sessions of the database wait for a lock.
 */
export async function eventBeingWritten(db: DataSource, tenantId: string) {
  const writer = db.createQueryRunner();
  await writer.connect();
  await writer.query(`SELECT pg_advisory_lock_shared($1, hashtext($2))`, [PUBLISHING_LOCK_NAMESPACE, tenantId]);
  return {
    lockWaits: (count: number, what: string) =>
      waitFor(
        async () => (await db.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)).length >= count,
        10_000,
        what,
      ),
    finish: () => writer.query(`SELECT pg_advisory_unlock_shared($1, hashtext($2))`, [PUBLISHING_LOCK_NAMESPACE, tenantId]),
    release: () => writer.release(),
  };
}
