import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../../platform/config/app-config.js';
import { isUuid } from '../../platform/validation/uuid.pipe.js';
import { type AdvanceLease, DeliveryAttemptHandler, type FreeSlot } from './delivery-attempt.handler.js';
import { type CircuitChange, DeliveryGate, type Grant, type ReceiverVerdict, type SlotRelease, type Taken } from './gate/delivery-gate.js';
import { StatementBatcher } from './statement-batcher.js';

/** Most slots asked for in one call to the gate. */
const TAKE_BATCH = 100;
/** With nothing due, the gate is asked again at least this often: a wake-up lost with a Redis connection, a slot left by a dead worker. */
const IDLE_CHECK_MS = 1000;
/** After the gate or an attempt failed unexpectedly (Redis or PostgreSQL unreachable), trying again waits this long. */
const ERROR_RETRY_MS = 5000;

/**
 * The worker's delivery loop: takes slots from the delivery gate, up to
 * WEBHOOK_WORKER_CONCURRENCY attempts at once in this process, and runs an attempt for each.
 * A slot is handed back as soon as its receiver has answered, and a delivery that must be tried
 * again goes back to the gate, due at its retry time. The loop asks the gate again whenever a
 * slot frees, a delivery is offered (a Redis message), or the next waiting delivery falls due;
 * it never polls for work faster than IDLE_CHECK_MS.
 *
 * While this process has room to spare, each slot comes with a successor: the endpoint's next
 * delivery, leased while the slot's attempt is sent. The call that frees the slot hands it to
 * the successor when the gate would grant the endpoint a slot then, and the successor is sent at
 * once, its lease already taken: between two deliveries to a busy endpoint there is one round
 * trip (to the gate) instead of two. A successor not handed the slot gives its lease back and
 * waits in the gate again.
 *
 * At shutdown it takes no more slots and waits for the attempts in flight to be recorded.
 */
@Injectable()
export class DeliveryDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliveryDispatcher.name);
  private readonly capacity: number;
  private active = 0;
  private pumping: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private drained: (() => void) | undefined;
  // One script call for every slot freed (or delivery put back) while the previous call ran; the
  // release also takes the slots this process has room for.
  private readonly releases = new StatementBatcher((calls: SlotRelease[]) => this.releaseAndTake(calls));
  private readonly returns = new StatementBatcher((calls: { endpointId: string; deliveryId: string; dueMs: number }[]) =>
    this.gate.enqueue(calls).then(() => calls.map(() => undefined)),
  );

  constructor(
    @Inject(DeliveryGate) private readonly gate: DeliveryGate,
    @Inject(DeliveryAttemptHandler) private readonly handler: DeliveryAttemptHandler,
    @Inject(AppConfig) config: AppConfig,
  ) {
    this.capacity = config.WEBHOOK_WORKER_CONCURRENCY;
  }

  onApplicationBootstrap(): void {
    this.gate.onWake(() => this.pump());
    this.pump();
  }

  /**
   * First thing at shutdown: takes no more slots, lets the attempts in flight finish and record
   * their outcome, and says how many there were. (The sender's pools close gracefully meanwhile;
   * the gate's Redis and the database stay open until the later shutdown hooks.)
   */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.pumping;
    const inFlight = this.active;
    if (this.active > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    this.logger.log({ in_flight_attempts: inFlight }, 'delivery attempts drained');
  }

  /** Takes slots while this process has room; once more right after the run in progress. */
  private pump(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = (async () => {
      do {
        this.again = false;
        while (this.room() > 0) {
          const want = this.room();
          let taken: Awaited<ReturnType<DeliveryGate['take']>>;
          try {
            taken = await this.gate.take(want, Date.now(), this.successors());
          } catch (error) {
            this.logger.warn({ err: error }, 'taking deliveries from the gate failed; trying again shortly');
            this.wakeAt(Date.now() + ERROR_RETRY_MS);
            break;
          }
          this.start(taken);
          if (taken.grants.length < want) {
            this.wakeAt(Math.min(taken.nextAtMs ?? Infinity, Date.now() + IDLE_CHECK_MS));
            break;
          }
        }
      } while (this.again && !this.stopped);
    })().finally(() => (this.pumping = undefined));
  }

  private wakeAt(at: number): void {
    if (at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timerAt = Infinity;
      this.pump();
    }, Math.max(0, at - Date.now()));
  }

  private room(): number {
    return this.stopped ? 0 : Math.min(TAKE_BATCH, this.capacity - this.active);
  }

  /**
   * Successors are asked for while at most half this process's capacity is in use: a worker that
   * full serves many endpoints, whose slots go round in turn rather than to successors.
   */
  private successors(): boolean {
    return !this.stopped && this.active < this.capacity / 2;
  }

  private start({ grants, changes }: Taken): void {
    this.logChanges(changes);
    for (const grant of grants) this.run(grant);
  }

  /** Answers, for each release, the grant of its successor if the gate handed it the slot. */
  private async releaseAndTake(releases: SlotRelease[]): Promise<(Grant | undefined)[]> {
    const want = this.room();
    const taken = await this.gate.release(releases, want, Date.now(), this.successors());
    this.start(taken);
    // Possibly more waiting than one call grants.
    if (want > 0 && taken.grants.length === want) this.pump();
    return releases.map(({ endpointId, successor }) => {
      if (!successor || !taken.handedOver.has(successor.deliveryId)) return undefined;
      return { endpointId, deliveryId: successor.deliveryId, probe: false, successorId: taken.handedOver.get(successor.deliveryId) ?? null };
    });
  }

  /**
   * Frees the slot of `grant` and, where the gate hands it over, sends its successor in it at
   * once; a successor not handed the slot goes back to the gate.
   */
  private async handOver(grant: Grant, successor: Promise<AdvanceLease | undefined> | undefined, verdict: ReceiverVerdict, holdUntilMs: number | null): Promise<void> {
    const ahead = await successor;
    const handOver = ahead !== undefined && !this.stopped && this.handler.stillCovers(ahead);
    const next = await this.releases.submit({
      endpointId: grant.endpointId,
      deliveryId: grant.deliveryId,
      verdict,
      holdUntilMs,
      successor: grant.successorId === null ? null : { deliveryId: grant.successorId, handOver },
    });
    if (grant.successorId === null) return;
    if (next !== undefined) return this.run(next, ahead);
    // Its lease failed in PostgreSQL: the gate still offers it.
    if (ahead === undefined) return this.giveBack(grant.endpointId, grant.successorId, Date.now() + ERROR_RETRY_MS);
    const dueMs = await this.handler.withdraw(ahead);
    if (dueMs !== null) await this.giveBack(grant.endpointId, grant.successorId, dueMs);
  }

  private giveBack(endpointId: string, deliveryId: string, dueMs: number): Promise<void> {
    return this.returns.submit({ endpointId, deliveryId, dueMs });
  }

  private run(grant: Grant, ahead?: AdvanceLease): void {
    // Left in Redis by a retry before the gate refused such offers: it names no delivery, so its
    // slot is freed and it is not offered again (it would fail its lease every 5 s for ever).
    if (!isUuid(grant.deliveryId)) {
      this.logger.warn({ delivery_id: grant.deliveryId, endpoint_id: grant.endpointId }, 'dropped a gate entry that names no delivery');
      void this.handOver(grant, undefined, 'none', null).catch(() => undefined);
      return;
    }
    this.active++;
    // The slot's next delivery is leased while this one is sent.
    const successor = grant.successorId === null ? undefined : this.handler.leaseAhead(grant.successorId).catch((error: unknown) => {
      this.logger.warn({ err: error, delivery_id: grant.successorId }, 'leasing a successor failed; it is offered again shortly');
      return undefined;
    });
    let released: Promise<unknown> | undefined;
    const freeSlot: FreeSlot = (verdict, holdUntilMs) => {
      released ??= this.handOver(grant, successor, verdict, holdUntilMs).catch(
        (error: unknown) => this.logger.warn({ err: error, delivery_id: grant.deliveryId }, 'freeing a delivery slot failed; it expires on its own'),
      );
    };
    // A delivery goes back to the gate only once its slot is free: while it holds one, the gate would not take it.
    const giveBack = async (dueMs: number) => {
      await released;
      await this.giveBack(grant.endpointId, grant.deliveryId, dueMs);
    };
    this.handler
      .attempt(grant, freeSlot, ahead)
      .then(async (dueMs) => {
        await released;
        if (dueMs !== null) await giveBack(dueMs);
      })
      .catch(async (error: unknown) => {
        this.logger.error({ err: error, delivery_id: grant.deliveryId }, 'delivery attempt failed unexpectedly; it is offered again shortly');
        freeSlot('none', null);
        // If this fails too, the sweep offers the delivery again.
        await giveBack(Date.now() + ERROR_RETRY_MS).catch(() => undefined);
      })
      .finally(() => {
        this.active--;
        if (this.stopped && this.active === 0) this.drained?.();
        else this.pump();
      });
  }

  /** Each change of a circuit is logged once: by the worker whose call to the gate made it. */
  private logChanges(changes: readonly CircuitChange[]): void {
    for (const { endpointId, state } of changes) {
      if (state === 'open') this.logger.warn({ endpoint_id: endpointId, circuit: state }, 'webhook endpoint circuit opened: its deliveries wait for a probe');
      else this.logger.log({ endpoint_id: endpointId, circuit: state }, state === 'closed' ? 'webhook endpoint circuit closed' : 'webhook endpoint circuit half-open: one probe delivery');
    }
  }
}
