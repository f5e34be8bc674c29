import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EventData, EventType } from '../../src/platform/catalog/event-types.js';
import { dropDatabase, migrate } from '../../src/platform/database/database.js';
import { EventDataCheck } from '../../src/platform/events/event-data-check.js';
import { EventPublisher } from '../../src/platform/events/event-publisher.service.js';
import { TenantData } from '../../src/platform/tenancy/tenant-data.js';
import { WebhookSecretBox } from '../../src/webhooks/secrets/webhook-secret-box.js';
import { WebhookEndpoint } from '../../src/webhooks/webhook-endpoint.entity.js';
import { startApi, type TestApi } from './api.js';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.js';
import { waitFor } from './wait-for.js';
import { startWorker } from './worker.js';

/**
 * A database of the test file's own, migrated, for files that run delivery workers. Every
 * worker relays every event of its database and sweeps its pending deliveries, so two test
 * files sharing one would deliver each other's events (with the other's DNS stub, clock and
 * settings). Dropped by `drop()`.
 */
export async function isolatedDatabase(name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `${url.pathname}_${name.replace(/-/g, '_')}`;
  await migrate(url.toString());
  return { url: url.toString(), drop: () => dropDatabase(url.toString()) };
}

/**
 * Runs the whole test file on a database of its own (isolatedDatabase), for files that hold up
 * others or are held up by them on the shared one: a `LOCK TABLE invoices` held other files'
 * invoice writes up past their timeouts (a fuzzing POST answered 503), and a revocation waits for
 * every API process listening on its database, other files' included. Call at the top of the
 * file, outside any describe.
 */
export function onOwnDatabase(name: string): void {
  const shared = process.env.DATABASE_URL;
  let database: { url: string; drop: () => Promise<void> } | undefined;
  beforeAll(async () => {
    database = await isolatedDatabase(name);
    process.env.DATABASE_URL = database.url;
  }, 60_000);
  afterAll(async () => {
    process.env.DATABASE_URL = shared;
    await database?.drop();
  });
}

/**
 * Delivery tests' settings: their own database (see isolatedDatabase), a local http receiver,
 * short retries, a fast sweep, and a circuit breaker whose cool-down is over at once (so a
 * failing receiver is probed on each retry, and the retry schedule and auto-disable can be
 * tested; the circuit's own tests set their cool-down).
 */
export function deliveryEnv(prefix: string, databaseUrl: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_PREFIX: `${process.env.REDIS_PREFIX}-${prefix}`,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    WEBHOOK_RETRY_SCHEDULE_MS: '30,30,30,30,30,30,30',
    WEBHOOK_TIMEOUT_MS: '1500',
    WEBHOOK_SWEEP_INTERVAL_MS: '500',
    WEBHOOK_CIRCUIT_COOLDOWN_MS: '1',
    WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS: '1',
    ...overrides,
  };
}

/** An endpoint stored as the endpoints API would store it; returns it with its plain secret. */
export async function createEndpoint(
  app: INestApplicationContext,
  owner: { tenantId: string; apiKeyId: string },
  values: Partial<Pick<WebhookEndpoint, 'url' | 'eventTypes' | 'piiEnabled' | 'status' | 'pinnedVersion'>> & { url: string },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const box = app.get(WebhookSecretBox);
  const secret = box.generateSecret();
  const endpoint = await app.get(DataSource).getRepository(WebhookEndpoint).save({
    tenantId: owner.tenantId,
    apiKeyId: owner.apiKeyId,
    name: 'receiver',
    eventTypes: ['fin.invoice.created'],
    status: 'active',
    piiEnabled: false,
    secretCiphertext: box.seal(secret),
    ...values,
  });
  return { endpoint, secret };
}

/** Data matching the schema of `type` (made from its examples), with members a test adds to tell events apart. */
export async function eventData<T extends EventType>(app: INestApplicationContext, type: T, extra: Record<string, unknown> = {}): Promise<EventData<T>> {
  return Object.assign(await app.get(EventDataCheck).example(type), extra);
}

/** Commits events the way feature modules do: through the outbox, in a transaction. */
export async function publishEvents(app: INestApplicationContext, tenantId: string, type: EventType, count = 1): Promise<string[]> {
  const publisher = app.get(EventPublisher);
  const data = await Promise.all(Array.from({ length: count }, (_, n) => eventData(app, type, { n })));
  return app.get(TenantData).transaction(tenantId, async (scope) => {
    const ids: string[] = [];
    for (const one of data) ids.push((await publisher.publish(scope, type, one)).id);
    return ids;
  });
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  status: string;
  attempt: number;
  error_class: string | null;
  next_attempt_at: Date | null;
  replayed_from: string | null;
  last_response_status: number | null;
}

export async function deliveriesOf(app: INestApplicationContext, endpointId: string): Promise<DeliveryRow[]> {
  return app.get(DataSource).query(`SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at, id`, [endpointId]);
}

/** Waits until the endpoint has `count` deliveries and none is pending. */
export async function settledDeliveries(app: INestApplicationContext, endpointId: string, count: number, timeoutMs = 15_000): Promise<DeliveryRow[]> {
  return waitFor(
    async () => {
      const rows = await deliveriesOf(app, endpointId);
      return rows.length >= count && rows.every((row) => row.status !== 'pending') && rows;
    },
    timeoutMs,
    `${count} settled deliveries of endpoint ${endpointId}`,
  );
}

/** What a delivery test file runs against: its own database, the API, one in-process worker and a local receiver. */
export interface DeliveryFixture {
  api: TestApi;
  worker: INestApplicationContext;
  receiver: WebhookReceiver;
  db: DataSource;
  close: () => Promise<void>;
}

export async function startDeliveryFixture(name: string, overrides: Record<string, string> = {}, respond?: WebhookReceiver['respond']): Promise<DeliveryFixture> {
  const database = await isolatedDatabase(name);
  const env = deliveryEnv(name, database.url, overrides);
  const api = await startApi({ env });
  const worker = await startWorker({ env });
  const receiver = await startReceiver(respond);
  return {
    api,
    worker,
    receiver,
    db: api.app.get(DataSource),
    close: async () => {
      await worker.close();
      await api.close();
      await receiver.close();
      await database.drop();
    },
  };
}
