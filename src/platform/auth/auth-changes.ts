import pg from 'pg';

/** The channel the `api_keys` and `tenants` triggers notify (migration auth-change-notifications). */
export const AUTH_CHANGES_CHANNEL = 'auth_changes';

/** Longest wait for a change's own notification before the change is reported anyway. */
const DELIVERY_TIMEOUT_MS = 2_000;

/**
 * Runs `change`, whose commit makes the triggers notify `payloadOf(result)`, and resolves only
 * once PostgreSQL has delivered that notification to a listening connection of this call's own.
 * PostgreSQL signals every listener at the same commit, so by then the API processes' caches
 * have been told too: an admin command that returns has taken effect for the next request.
 */
export async function afterChangeDelivered<T>(databaseUrl: string, change: () => Promise<T>, payloadOf: (result: T) => string): Promise<T> {
  const listener = new pg.Client({ connectionString: databaseUrl });
  const seen = new Set<string>();
  let arrived: (() => void) | undefined;
  listener.on('notification', (message) => {
    seen.add(message.payload ?? '');
    arrived?.();
  });
  listener.on('error', () => undefined);
  await listener.connect();
  try {
    await listener.query(`LISTEN ${AUTH_CHANGES_CHANNEL}`);
    const result = await change();
    const payload = payloadOf(result);
    const deadline = Date.now() + DELIVERY_TIMEOUT_MS;
    while (!seen.has(payload) && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        arrived = resolve;
        setTimeout(resolve, deadline - Date.now()).unref();
      });
    }
    return result;
  } finally {
    await listener.end().catch(() => undefined);
  }
}
