import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../../platform/config/app-config.js';
import { isTransientFault } from '../../platform/errors/transient-faults.js';
import { throttledWarning } from '../../platform/timing/throttled-warning.js';
import { isUuid } from '../../platform/validation/uuid.pipe.js';
import { DeliveryAttemptHandler, type FreeSlot } from './delivery-attempt.handler.js';
import { type CircuitChange, DeliveryGate, type Grant, type SlotRelease, type Taken } from './gate/delivery-gate.js';
import { StatementBatcher } from './statement-batcher.js';

/** Most slots asked for in one call to the gate. */
const TAKE_BATCH = 100;
/** With nothing due, the gate is asked again at least this often: a wake-up lost with a Redis connection, a slot left by a dead worker. */
const IDLE_CHECK_MS = 1000;
/** After an attempt failed unexpectedly (Redis or PostgreSQL unreachable), its delivery is offered again this much later. */
const ERROR_RETRY_MS = 5000;
/**
 * After a take failed, the next waits this long, doubling to ERROR_RETRY_MS while they keep
 * failing: a take that timed out on a stall of Redis's ending soon after is taken again within
 * the stall's own length (a flat 5 s waited the whole 5 s), and an outage is not asked every 250 ms.
 */
const TAKE_RETRY_FIRST_MS = 250;

/**
 * The worker's delivery loop: takes slots from the delivery gate, up to
 * WEBHOOK_WORKER_CONCURRENCY attempts at once in this process, and runs an attempt for each.
 * A slot is handed back as soon as its receiver has answered, and a delivery that must be tried
 * again goes back to the gate, due at its retry time. The gate is asked again whenever a slot
 * frees (the call that frees it also takes), a delivery goes back, another process offers a
 * delivery (a Redis message), or the next waiting delivery falls due; it never polls for work
 * faster than IDLE_CHECK_MS. What this process's relay makes it offers itself, taking in the
 * same call.
 *
 * At shutdown it takes no more slots and waits for the attempts in flight to be recorded.
 */
@Injectable()
export class DeliveryDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliveryDispatcher.name);
  /**
   * Attempts a backing service failed under, as a throttled warning without a stack: an outage
   * is not a fault of the code, and every attempt in flight met it (1,651 error lines with stacks
   * in two minutes of a PostgreSQL outage, found by a crash review).
   */
  private readonly warnOfOutage = throttledWarning((message) => this.logger.warn(message));
  private readonly warnOfGateOutage = throttledWarning((message) => this.logger.warn(message));
  private readonly capacity: number;
  private active = 0;
  private pumping: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private drained: (() => void) | undefined;
  private takeRetryMs = TAKE_RETRY_FIRST_MS;
  /**
   * Set when a slot was freed without taking for this process (it had no room then, or the
   * release failed): the next attempt to end asks the gate. Otherwise the release has already
   * taken whatever the process had room for, and asking again after every attempt answered
   * nothing in a burst: about half of the gate's calls (docs/benchmarks.md).
   */
  private takeOwed = false;
  // One script call for every slot freed (or delivery put back) while the previous call ran; the
  // release also takes the slots this process has room for.
  private readonly releases = new StatementBatcher((calls: SlotRelease[]) => this.releaseAndTake(calls).then(() => calls.map(() => undefined)));
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
    // Back from an outage, the gate is asked at once rather than when the backed-off retry falls
    // due. Only then: the first connect, with no take failed, would add a take that finds nothing.
    this.gate.onReady(() => {
      if (this.takeRetryMs > TAKE_RETRY_FIRST_MS) this.pump();
    });
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

  /**
   * Offers deliveries due now to the gate and takes, in the same call, the slots this process has
   * room for: what the relay just made is attempted without a wake-up and a take of its own
   * (docs/webhooks.md). Returns how many the gate did not hold yet.
   */
  async offer(deliveries: readonly { endpointId: string; deliveryId: string }[]): Promise<number> {
    const want = this.room();
    const taken = await this.gate.offer(deliveries, want);
    this.start(taken);
    if (want > 0) this.takeMoreOrWait(want, taken);
    return taken.added;
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
          let taken: Taken;
          this.takeOwed = false;
          try {
            taken = await this.gate.take(want);
          } catch (error) {
            // Redis away: each retry meets it again, so it is said once in a while, without a stack.
            if (isTransientFault(error)) this.warnOfGateOutage(`taking deliveries from the gate failed (Redis did not answer: ${(error as Error).message}); trying again shortly`);
            else this.logger.warn({ err: error }, 'taking deliveries from the gate failed; trying again shortly');
            this.wakeAt(Date.now() + this.takeRetryMs);
            this.takeRetryMs = Math.min(this.takeRetryMs * 2, ERROR_RETRY_MS);
            break;
          }
          this.takeRetryMs = TAKE_RETRY_FIRST_MS;
          this.start(taken);
          if (taken.grants.length < want) {
            this.wakeForNext(taken);
            break;
          }
        }
      } while (this.again && !this.stopped);
    })().finally(() => (this.pumping = undefined));
  }

  /** When the gate granted less than asked: ask again when its next delivery is due, and at least once a second. */
  private wakeForNext({ nextAtMs }: Taken): void {
    this.wakeAt(Math.min(nextAtMs ?? Infinity, Date.now() + IDLE_CHECK_MS));
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

  /** Never below 0: a take and a release's take in flight at once may both have filled the room. */
  private room(): number {
    return this.stopped ? 0 : Math.max(0, Math.min(TAKE_BATCH, this.capacity - this.active));
  }

  private start({ grants, changes }: Taken): void {
    this.logChanges(changes);
    for (const grant of grants) this.run(grant);
  }

  private async releaseAndTake(releases: SlotRelease[]): Promise<void> {
    const want = this.room();
    if (want === 0) this.takeOwed = true;
    const taken = await this.gate.release(releases, want).catch((error: unknown) => {
      this.takeOwed = true;
      throw error;
    });
    this.start(taken);
    if (want > 0) this.takeMoreOrWait(want, taken);
  }

  /** After a call that took for this process: more may wait than it granted, or else ask again when the next is due. */
  private takeMoreOrWait(want: number, taken: Taken): void {
    if (taken.grants.length === want) this.pump();
    else this.wakeForNext(taken);
  }

  private run(grant: Grant): void {
    // Left in Redis by a retry before the gate refused such offers: it names no delivery, so its
    // slot is freed and it is not offered again (it would fail its lease every 5 s for ever).
    if (!isUuid(grant.deliveryId)) {
      this.logger.warn({ delivery_id: grant.deliveryId, endpoint_id: grant.endpointId }, 'dropped a gate entry that names no delivery');
      void this.releases.submit({ ...grant, verdict: 'none', holdUntilMs: null }).catch(() => undefined);
      return;
    }
    this.active++;
    let released: Promise<unknown> | undefined;
    const freeSlot: FreeSlot = (verdict, holdUntilMs) => {
      released ??= this.releases.submit({ ...grant, verdict, holdUntilMs }).catch(
        (error: unknown) => this.logger.warn({ err: error, delivery_id: grant.deliveryId }, 'freeing a delivery slot failed; the gate frees it again once Redis answers'),
      );
    };
    // A delivery goes back to the gate only once its slot is free: while it holds one, the gate would not take it.
    const giveBack = async (dueMs: number) => {
      await released;
      await this.returns.submit({ endpointId: grant.endpointId, deliveryId: grant.deliveryId, dueMs });
    };
    // A delivery given back is due later: the gate's answer to a take says when to ask again.
    let givenBack = false;
    this.handler
      .attempt(grant, freeSlot)
      .then(async (dueMs) => {
        await released;
        if (dueMs === null) return;
        givenBack = true;
        await giveBack(dueMs);
      })
      .catch(async (error: unknown) => {
        givenBack = true;
        if (isTransientFault(error)) this.warnOfOutage(`a delivery attempt could not be recorded (PostgreSQL or Redis did not answer: ${(error as Error).message}); it is offered again shortly`);
        else this.logger.error({ err: error, delivery_id: grant.deliveryId }, 'delivery attempt failed unexpectedly; it is offered again shortly');
        freeSlot('none', null);
        // If this fails too, the sweep offers the delivery again.
        await giveBack(Date.now() + ERROR_RETRY_MS).catch(() => undefined);
      })
      .finally(() => {
        this.active--;
        if (this.stopped && this.active === 0) this.drained?.();
        else if (givenBack || this.takeOwed) this.pump();
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
