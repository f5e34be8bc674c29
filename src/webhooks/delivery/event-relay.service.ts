import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { AccessService } from '../../platform/access/access.service.js';
import { AppConfig } from '../../platform/config/app-config.js';
import { PgListener } from '../../platform/database/pg-listener.js';
import { EventCatalog, isEventType } from '../../platform/catalog/event-types.js';
import { deliveryApiVersion } from './webhook-envelope.js';
import { deliveryRefusal, entitlementKeyOf, type KeyColumns, keyStateAt } from './webhook-entitlement.js';
import { DeliveryGate } from './gate/delivery-gate.js';

/** Events taken per relay transaction. */
const RELAY_BATCH = 500;
/** Pending deliveries the sweep offers again per statement. */
const SWEEP_BATCH = 2000;
const NOTIFY_CHANNEL = 'events_inserted';

interface Candidate extends KeyColumns {
  event_id: string;
  event_created_at: Date;
  event_type: string;
  tenant_id: string;
  endpoint_id: string;
  endpoint_status: 'active';
  pii_enabled: boolean;
  pinned_version: string | null;
}

/**
 * The worker's relay from the `events` outbox to deliveries (issue 9, item 1).
 *
 * - Wake-up: `LISTEN events_inserted` (a trigger NOTIFYs at the commit of any transaction that
 *   wrote events), plus a sweep every WEBHOOK_SWEEP_INTERVAL_MS that relays whatever a lost
 *   notification left behind.
 * - Fan-out: undispatched events are taken `FOR UPDATE SKIP LOCKED`, so any number of workers
 *   share them; each entitled endpoint gets one `pending` delivery (unique per event and
 *   endpoint) in the transaction that marks the events dispatched. An endpoint whose key expired
 *   or was deleted is paused (`api_key_inactive`) at the first event it can no longer receive.
 * - Offer to the delivery gate after commit. A crash between commit and offer, or a Redis
 *   flush, leaves pending deliveries the gate does not know: the sweep offers them again.
 */
@Injectable()
export class EventRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(EventRelay.name);
  // Re-made after it drops; the sweep covers the gap.
  private readonly listener: PgListener;
  private sweepTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** Where the sweep goes on from: it walks all overdue deliveries over its runs, a batch each. */
  private sweepCursor: { at: Date; id: string } | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(DeliveryGate) private readonly gate: DeliveryGate,
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(AccessService) private readonly access: AccessService,
  ) {
    this.listener = new PgListener(config.DATABASE_URL, NOTIFY_CHANNEL, {
      notification: () => this.wake(),
      listening: () => this.wake(),
      lost: (reason) => this.logger.warn(`relay listener: ${reason}; reconnecting`),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.listener.start();
    this.sweepTimer = setInterval(() => void this.sweep(), this.config.WEBHOOK_SWEEP_INTERVAL_MS);
    this.wake();
  }

  /** Before the database closes: no new relay runs, the one in progress finishes. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    await this.listener.stop();
    await this.running;
  }

  /** Runs the relay now, or once more right after the run in progress. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          while ((await this.relayBatch()) === RELAY_BATCH && !this.stopped);
        } catch (error) {
          this.logger.error({ err: error }, 'relaying events failed; the sweep retries');
        }
      } while (this.again && !this.stopped);
    })().finally(() => (this.running = undefined));
  }

  /** One transaction: take undispatched events, create their deliveries, mark them dispatched. Returns the events taken. */
  async relayBatch(): Promise<number> {
    const created = await this.dataSource.transaction(async (manager) => {
      const events: { id: string }[] = await manager.query(
        `SELECT id FROM events WHERE dispatched_at IS NULL ORDER BY created_at LIMIT ${RELAY_BATCH} FOR UPDATE SKIP LOCKED`,
      );
      if (events.length === 0) return { taken: 0, deliveries: [] };
      const ids = events.map((event) => event.id);
      const deliveries = await this.fanOut(manager, ids);
      await manager.query(`UPDATE events SET dispatched_at = clock_timestamp() WHERE id = ANY($1::uuid[])`, [ids]);
      return { taken: events.length, deliveries };
    });
    await this.enqueue(created.deliveries);
    return created.taken;
  }

  private async fanOut(manager: EntityManager, eventIds: string[]): Promise<{ id: string; endpoint_id: string }[]> {
    const candidates: Candidate[] = await manager.query(
      `SELECT e.id AS event_id, e.created_at AS event_created_at, e.type AS event_type, e.tenant_id,
              w.id AS endpoint_id, w.status AS endpoint_status, w.pii_enabled, w.pinned_version,
              k.scopes, k.revoked_at, k.expires_at, k.deleted_at
         FROM events e
         JOIN webhook_endpoints w ON w.tenant_id = e.tenant_id AND w.status = 'active' AND w.created_at < e.created_at
                                 AND (e.type = ANY (w.event_types) OR '*' = ANY (w.event_types))
         LEFT JOIN api_keys k ON k.id = w.api_key_id AND k.tenant_id = w.tenant_id
        WHERE e.id = ANY ($1::uuid[])
        ORDER BY e.created_at, e.id`,
      [eventIds],
    );
    const rows: { tenantId: string; endpointId: string; eventId: string; eventType: string; apiVersion: string; personal: boolean }[] = [];
    const paused = new Map<string, 'api_key_inactive' | 'api_key_revoked'>();
    for (const candidate of candidates) {
      if (paused.has(candidate.endpoint_id)) continue;
      const key = entitlementKeyOf(candidate);
      const at = candidate.event_created_at;
      const refusal = deliveryRefusal(this.access, { status: candidate.endpoint_status, piiEnabled: candidate.pii_enabled }, key, candidate.event_type, at);
      if (refusal === 'api_key_inactive') {
        paused.set(candidate.endpoint_id, keyStateAt(key, at) === 'revoked' ? 'api_key_revoked' : 'api_key_inactive');
      } else if (refusal === null) {
        rows.push({
          tenantId: candidate.tenant_id,
          endpointId: candidate.endpoint_id,
          eventId: candidate.event_id,
          eventType: candidate.event_type,
          apiVersion: deliveryApiVersion(candidate.pinned_version),
          personal: isEventType(candidate.event_type) && EventCatalog[candidate.event_type].personalData,
        });
      }
    }
    for (const [endpointId, reason] of paused) {
      await manager.query(
        `UPDATE webhook_endpoints SET status = 'paused', disabled_reason = $2, status_changed_at = clock_timestamp(), updated_at = clock_timestamp()
          WHERE id = $1 AND status = 'active'`,
        [endpointId, reason],
      );
      this.logger.warn({ endpoint_id: endpointId, reason }, 'endpoint paused: its API key can no longer receive events');
    }
    if (rows.length === 0) return [];
    return manager.query(
      `INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, api_version, personal_data, next_attempt_at)
       SELECT t, en, ev, ty, v, p, clock_timestamp()
         FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::boolean[]) AS x(t, en, ev, ty, v, p)
       ON CONFLICT (event_id, endpoint_id) WHERE replayed_from IS NULL DO NOTHING
       RETURNING id, endpoint_id`,
      [
        rows.map((row) => row.tenantId),
        rows.map((row) => row.endpointId),
        rows.map((row) => row.eventId),
        rows.map((row) => row.eventType),
        rows.map((row) => row.apiVersion),
        rows.map((row) => row.personal),
      ],
    );
  }

  /**
   * Relays what a lost notification left, and offers the gate again every pending delivery that
   * is overdue by a sweep interval and not leased by an attempt in progress (Redis flushed or
   * restarted, a worker that died between two calls to the gate). One already waiting in the
   * gate stays as it is. Walks the overdue deliveries a batch per run, so a long backlog behind
   * an open circuit never hides the ones after it.
   */
  async sweep(): Promise<void> {
    if (this.stopped) return;
    this.wake();
    try {
      const cursor = this.sweepCursor;
      const overdue: { id: string; endpoint_id: string; next_attempt_at: Date }[] = await this.dataSource.query(
        `SELECT id, endpoint_id, next_attempt_at FROM webhook_deliveries
          WHERE status = 'pending' AND next_attempt_at <= clock_timestamp() - $1 * interval '1 millisecond'
            AND (leased_until IS NULL OR leased_until < clock_timestamp())
            AND ($2::timestamptz IS NULL OR (next_attempt_at, id) > ($2::timestamptz, $3::uuid))
          ORDER BY next_attempt_at, id LIMIT ${SWEEP_BATCH}`,
        [this.config.WEBHOOK_SWEEP_INTERVAL_MS, cursor?.at ?? null, cursor?.id ?? null],
      );
      const last = overdue.at(-1);
      this.sweepCursor = overdue.length === SWEEP_BATCH && last ? { at: last.next_attempt_at, id: last.id } : null;
      const offered = await this.enqueue(overdue);
      if (offered > 0) this.logger.warn({ count: offered }, 'sweep: offered again pending deliveries the delivery gate had lost');
    } catch (error) {
      this.logger.error({ err: error }, 'sweep failed');
    }
  }

  /** Offers deliveries to the gate, due now; returns how many it did not hold yet. */
  private enqueue(deliveries: readonly { id: string; endpoint_id: string }[]): Promise<number> {
    return this.gate.enqueue(deliveries.map((delivery) => ({ endpointId: delivery.endpoint_id, deliveryId: delivery.id })));
  }
}
