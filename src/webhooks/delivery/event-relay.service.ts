import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AccessService } from '../../platform/access/access.service.js';
import { AppConfig } from '../../platform/config/app-config.js';
import { isTransientFault } from '../../platform/errors/transient-faults.js';
import { PgListener } from '../../platform/database/pg-listener.js';
import { EventCatalog, isEventType } from '../../platform/catalog/event-types.js';
import { deliveryApiVersion } from './webhook-envelope.js';
import { deliveryRefusal, entitlementKeyOf, keyPauseReason } from './webhook-entitlement.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import { type DeliveryRef, DeliveryStore, type FanOut, type RelayCandidate, SWEEP_BATCH } from './delivery-store.js';

const NOTIFY_CHANNEL = 'events_inserted';
/**
 * Relay transactions one worker runs at once. An event committed while one runs starts its own
 * (SKIP LOCKED keeps their events apart) instead of waiting for a batch of another company's.
 */
const RELAY_RUNS = 2;
/**
 * A relay that failed (PostgreSQL dropped its connection, a deadlock, a statement timeout) runs
 * again this much later, then twice as late after each failure in a row, up to the sweep's
 * interval. Its events stay undispatched meanwhile: before, only the next notification or the
 * sweep (30 s by default) relayed them.
 */
const RELAY_RETRY_MS = 1000;

/**
 * The worker's relay from the `events` outbox to deliveries.
 *
 * - Wake-up: `LISTEN events_inserted` (a trigger NOTIFYs at the commit of any transaction that
 *   wrote events), plus a sweep every WEBHOOK_SWEEP_INTERVAL_MS that relays whatever a lost
 *   notification left behind, and a retry soon after a relay that failed (RELAY_RETRY_MS).
 * - Fan-out: undispatched events are taken `FOR UPDATE SKIP LOCKED`, so any number of workers
 *   share them, company by company in turn (DeliveryStore.relay); each entitled endpoint gets
 *   one `pending` delivery (unique per event and endpoint) in the transaction that marks the
 *   events dispatched. An endpoint whose key expired or was deleted is paused
 *   (`api_key_inactive`) at the first event it can no longer receive.
 * - Offer to the delivery gate after commit, through this process's dispatcher, which takes its
 *   share of them in the same call. A crash between commit and offer, or a Redis flush, leaves
 *   pending deliveries the gate does not know: the sweep offers them again.
 */
@Injectable()
export class EventRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(EventRelay.name);
  // Re-made after it drops; the sweep covers the gap.
  private readonly listener: PgListener;
  private sweepTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryInMs = RELAY_RETRY_MS;
  private retryAt = 0;
  private readonly running = new Set<Promise<void>>();
  private again = false;
  private stopped = false;
  /** The company the latest relay transaction took events from last: the next starts after it. */
  private relayCursor: string | null = null;
  /** Where the sweep goes on from: it walks all overdue deliveries over its runs, a batch each. */
  private sweepCursor: { at: Date; id: string } | null = null;

  constructor(
    @Inject(DeliveryStore) private readonly store: DeliveryStore,
    @Inject(DeliveryDispatcher) private readonly dispatcher: DeliveryDispatcher,
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(AccessService) private readonly access: AccessService,
  ) {
    this.listener = new PgListener(config.DATABASE_URL, NOTIFY_CHANNEL, {
      notification: () => this.wake(),
      listening: () => this.wake(),
      warn: (reason) => this.logger.warn(`relay listener: ${reason}; reconnecting`),
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
    clearTimeout(this.retryTimer);
    await this.listener.stop();
    await Promise.all(this.running);
  }

  /** Runs the relay now, or once more right after a run in progress when RELAY_RUNS are. */
  wake(): void {
    if (this.stopped) return;
    if (this.running.size >= RELAY_RUNS) {
      this.again = true;
      return;
    }
    const run = (async () => {
      do {
        this.again = false;
        try {
          while ((await this.relayBatch()) && !this.stopped);
          this.retryInMs = RELAY_RETRY_MS;
        } catch (error) {
          this.logFailure(error, `relaying events failed; tried again in ${this.retryLater()} ms`);
        }
      } while (this.again && !this.stopped);
    })().finally(() => this.running.delete(run));
    this.running.add(run);
  }

  /** Runs the relay again after the current wait (unless a retry is already due); answers in how many ms. */
  private retryLater(): number {
    if (this.retryTimer === undefined && !this.stopped) {
      const delay = this.retryInMs;
      this.retryInMs = Math.min(delay * 2, this.config.WEBHOOK_SWEEP_INTERVAL_MS);
      this.retryAt = Date.now() + delay;
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.wake();
      }, delay);
    }
    return Math.max(0, this.retryAt - Date.now());
  }

  /** One transaction: take undispatched events, create their deliveries, mark them dispatched. Answers whether events may be left. */
  async relayBatch(): Promise<boolean> {
    const relayed = await this.store.relay(
      (candidates) => this.fanOut(candidates),
      this.relayCursor,
      (lastTenantId) => (this.relayCursor = lastTenantId),
    );
    for (const [endpointId, reason] of relayed.paused) {
      this.logger.warn({ endpoint_id: endpointId, reason }, 'endpoint paused: its API key can no longer receive events');
    }
    await this.enqueue(relayed.deliveries);
    return relayed.more;
  }

  /**
   * Each candidate endpoint gets a delivery of the event if its key may receive it when it
   * happened; an endpoint whose key had expired or was deleted by then is paused instead, and
   * gets none of the batch's later events.
   */
  private fanOut(candidates: RelayCandidate[]): FanOut {
    const fanOut: FanOut = { deliveries: [], paused: new Map() };
    for (const candidate of candidates) {
      if (fanOut.paused.has(candidate.endpoint_id)) continue;
      const key = entitlementKeyOf(candidate);
      const at = candidate.event_created_at;
      const refusal = deliveryRefusal(this.access, { status: candidate.endpoint_status, piiEnabled: candidate.pii_enabled }, key, candidate.event_type, at);
      if (refusal === 'api_key_inactive') {
        fanOut.paused.set(candidate.endpoint_id, keyPauseReason(key, at));
      } else if (refusal === null) {
        fanOut.deliveries.push({
          tenantId: candidate.tenant_id,
          endpointId: candidate.endpoint_id,
          eventId: candidate.event_id,
          eventType: candidate.event_type,
          apiVersion: deliveryApiVersion(candidate.pinned_version),
          personal: isEventType(candidate.event_type) && EventCatalog[candidate.event_type].personalData,
        });
      }
    }
    return fanOut;
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
      const overdue = await this.store.overdue(this.config.WEBHOOK_SWEEP_INTERVAL_MS, this.sweepCursor);
      const last = overdue.at(-1);
      this.sweepCursor = overdue.length === SWEEP_BATCH && last ? { at: last.next_attempt_at, id: last.id } : null;
      const offered = await this.enqueue(overdue);
      if (offered > 0) this.logger.warn({ count: offered }, 'sweep: offered again pending deliveries the delivery gate had lost');
    } catch (error) {
      this.logFailure(error, 'sweep failed');
    }
  }

  /** A backing service that did not answer is an outage the relay and the sweep retry through (a warning); anything else is a fault (an error, with its stack). */
  private logFailure(error: unknown, message: string): void {
    if (isTransientFault(error)) this.logger.warn({ cause: (error as Error).message }, message);
    else this.logger.error({ err: error }, message);
  }

  /** Offers deliveries to the gate, due now; returns how many it did not hold yet. */
  private enqueue(deliveries: readonly DeliveryRef[]): Promise<number> {
    return this.dispatcher.offer(deliveries.map((delivery) => ({ endpointId: delivery.endpoint_id, deliveryId: delivery.id })));
  }
}
