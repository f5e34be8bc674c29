import pg from 'pg';

/** The channel the `api_keys` and `tenants` triggers notify (migration auth-change-notifications). */
export const AUTH_CHANGES_CHANNEL = 'auth_changes';

/** The payloads the triggers send, as `AuthCache.invalidate` reads them. */
export const keyChange = (prefix: string): string => `key:${prefix}`;
export const tenantChange = (tenantId: string): string => `tenant:${tenantId}`;

/** Where an API process confirms, with the change's own payload, that its cache dropped it. */
export const AUTH_ACKS_CHANNEL = 'auth_change_acks';

/** The `application_name` of every API process's listening connection, so a change can find them all. */
export const AUTH_LISTENER_APPLICATION = 'integrations-api:auth-listener';

/** Longest wait for the confirmations; a process that has not answered by then is stuck or gone. */
const CONFIRMATION_TIMEOUT_MS = 5_000;
/** How often the set of listening processes is read again, so one that went away is not waited for. */
const LISTENERS_POLL_MS = 100;

const LISTENERS_SQL = `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`;

/**
 * Runs `change`, whose commit makes the triggers notify `payloadOf(result)`, and resolves only
 * once every API process listening on this database has confirmed that its cache dropped what
 * the payload names. PostgreSQL signals the listeners at commit but each delivers on its own
 * schedule, so without the confirmation a next request could still meet the old key in a busy
 * process. A process is known by its listening connection's backend pid: it confirms with a
 * NOTIFY from that same connection, whose sender pid PostgreSQL reports with the message.
 * A process that does not confirm within CONFIRMATION_TIMEOUT_MS is not waited for longer;
 * its cache entries still expire with the cache's time-to-live.
 */
export async function afterEveryProcessDropped<T>(databaseUrl: string, change: () => Promise<T>, payloadOf: (result: T) => string): Promise<T> {
  const confirmations = new pg.Client({ connectionString: databaseUrl });
  const confirmedBy = new Map<string, Set<number>>();
  let arrived: (() => void) | undefined;
  confirmations.on('notification', (message) => {
    const payload = message.payload ?? '';
    if (!confirmedBy.has(payload)) confirmedBy.set(payload, new Set());
    confirmedBy.get(payload)!.add(message.processId);
    arrived?.();
  });
  confirmations.on('error', () => undefined);
  await confirmations.connect();
  try {
    // Listening before the change commits, so no confirmation can come before we hear it.
    await confirmations.query(`LISTEN ${AUTH_ACKS_CHANNEL}`);
    const result = await change();
    const payload = payloadOf(result);
    const deadline = Date.now() + CONFIRMATION_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const { rows } = await confirmations.query<{ pid: number }>(LISTENERS_SQL, [AUTH_LISTENER_APPLICATION]);
      const confirmed = confirmedBy.get(payload) ?? new Set<number>();
      if (rows.every((row) => confirmed.has(row.pid))) break;
      await new Promise<void>((resolve) => {
        arrived = resolve;
        setTimeout(resolve, Math.min(LISTENERS_POLL_MS, deadline - Date.now())).unref();
      });
    }
    return result;
  } finally {
    await confirmations.end().catch(() => undefined);
  }
}
