import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { AppConfig } from '../../../platform/config/app-config.js';
import { reconnectWhenSilent } from '../../../platform/health/redis-liveness.js';
import { throttledWarning } from '../../../platform/timing/throttled-warning.js';
import { isUuid } from '../../../platform/validation/uuid.pipe.js';
import { ENQUEUE, FORGET, RECLAIM, RELEASE, TAKE } from './gate-scripts.js';

export const CIRCUIT_STATES = ['closed', 'open', 'half_open'] as const;
export type CircuitState = (typeof CIRCUIT_STATES)[number];

/** What an attempt showed of its receiver: `up` (an answer below 500), `down` (5xx, timeout, no connection), `none` (nothing was sent). */
export type ReceiverVerdict = 'up' | 'down' | 'none';

/** A slot to make one attempt of one delivery; `probe` when it is a half-open circuit's single trial. */
export interface Grant {
  endpointId: string;
  deliveryId: string;
  probe: boolean;
}

export interface CircuitChange {
  endpointId: string;
  state: CircuitState;
}

export interface Circuit {
  state: CircuitState;
  openedAt: Date | null;
  nextProbeAt: Date | null;
  /** Until when a receiver's Retry-After holds the endpoint back, if that is still ahead. */
  heldUntil: Date | null;
}

export interface SlotRelease {
  endpointId: string;
  deliveryId: string;
  verdict: ReceiverVerdict;
  /** Hold the endpoint's other deliveries back until then (epoch ms): a receiver's Retry-After. */
  holdUntilMs: number | null;
}

/** What a take, a release or an offer grants: the slots, the circuits that changed state, and when the next waiting delivery is due (epoch ms), if any. */
export interface Taken {
  grants: Grant[];
  changes: CircuitChange[];
  nextAtMs: number | null;
}

/** A script's answer to a take: the grants, the circuit changes and the next score (see gate-scripts.ts). */
type TakeReply = [[string, string, number][], [string, CircuitState][], string | null];

/** Adds one script call's answer to `taken`; the last call's next due time stands. */
function addTaken(taken: Taken, [grants, changes, nextAt]: TakeReply): Taken {
  taken.grants.push(...grants.map(([endpointId, deliveryId, probe]) => ({ endpointId, deliveryId, probe: probe === 1 })));
  taken.changes.push(...changes.map(([endpointId, state]) => ({ endpointId, state })));
  taken.nextAtMs = nextAt === null ? null : Number(nextAt);
  return taken;
}

/** How long a slot outlives the receiver timeout before it counts as left behind by a dead worker. */
const SLOT_MARGIN_MS = 10_000;
/** A gate call slower than this fails (the API then shows no circuit; the worker tries again), instead of waiting for Redis to come back. */
const COMMAND_TIMEOUT_MS = 2000;
/** Most deliveries one script call carries. */
const CHUNK = 1000;
/** How soon, and how often, the slots granted to a call that got no answer are asked back. */
const RECLAIM_RETRY_MS = 500;

type GateCommands = {
  ohGateEnqueue(...args: (string | number)[]): Promise<[number, ...TakeReply]>;
  ohGateTake(...args: (string | number)[]): Promise<TakeReply>;
  ohGateRelease(...args: (string | number)[]): Promise<TakeReply>;
  ohGateForget(...args: (string | number)[]): Promise<number>;
  ohGateReclaim(...args: (string | number)[]): Promise<number>;
};

/**
 * The delivery gate: which delivery may be attempted now, shared by every worker through Redis
 * (the scripts in gate-scripts.ts). It caps the requests in flight per endpoint
 * (WEBHOOK_ENDPOINT_CONCURRENCY), serves endpoints with waiting deliveries in turn, keeps a
 * circuit breaker per endpoint and honours a receiver's Retry-After for the whole endpoint.
 *
 * PostgreSQL stays the record of truth: the gate only orders pending deliveries. Whatever it
 * loses (a Redis flush, a worker dying between two calls) is offered again by the relay's sweep,
 * and an attempt still leases its delivery in PostgreSQL, so a delivery offered twice is never
 * sent twice at once.
 *
 * A call that fails without an answer (Redis stalled past the command timeout, or the
 * connection dropped) may or may not have run. One that may grant slots has an id under which the
 * gate keeps its grants, which would otherwise hold their slots, with no worker to use them, until
 * they expire (`WEBHOOK_TIMEOUT_MS` + 10 s): the gate asks for them back (`reclaim`). The slots a
 * failed release was to free are released again, which frees only those still held and counts
 * each verdict once, and their deliveries offered again, due now, as the slots' expiry would have
 * done. Both are sent on the same connection after the call, so they find what it
 * did if it ran, and repeated until Redis answers or the slots would have expired anyway.
 */
@Injectable()
export class DeliveryGate implements OnApplicationShutdown {
  private readonly logger = new Logger(DeliveryGate.name);
  private readonly redis: Redis & GateCommands;
  private subscriber: Redis | undefined;
  private readonly prefix: string;
  private readonly cap: number;
  private readonly slotTtlMs: number;
  private readonly livenessChecks: (() => void)[] = [];
  /** Calls that got no answer, by id, with when their slots expire anyway (epoch ms). */
  private readonly unanswered = new Map<string, number>();
  /** Releases that got no answer, with when their slots expire anyway (epoch ms). */
  private unreleased: { releases: SlotRelease[]; expiresAt: number }[] = [];
  private reclaimTimer: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(@Inject(AppConfig) private readonly config: AppConfig) {
    this.prefix = `${config.REDIS_PREFIX}:wh`;
    this.cap = config.WEBHOOK_ENDPOINT_CONCURRENCY;
    this.slotTtlMs = config.WEBHOOK_TIMEOUT_MS + SLOT_MARGIN_MS;
    // Lazy: the API and CLI load this module but most of their runs never ask the gate anything.
    // Auto-pipelining: the calls of one event-loop turn leave in one write.
    // Not sent again after a reconnect: a take or release that had no answer may have run, and run
    // twice it would grant slots to no one or count a failure twice (the sweep offers what is lost).
    this.redis = new Redis(config.REDIS_URL, {
      connectionName: `${this.prefix}:gate`,
      lazyConnect: true,
      commandTimeout: COMMAND_TIMEOUT_MS,
      disconnectTimeout: 500,
      enableAutoPipelining: true,
      autoResendUnfulfilledCommands: false,
    }) as Redis & GateCommands;
    const warn = throttledWarning((message) => this.logger.warn(message));
    this.redis.on('error', (error: Error) => warn(`delivery gate: Redis: ${error.message}`));
    this.redis.defineCommand('ohGateEnqueue', { numberOfKeys: 0, lua: ENQUEUE });
    this.redis.defineCommand('ohGateTake', { numberOfKeys: 0, lua: TAKE });
    this.redis.defineCommand('ohGateRelease', { numberOfKeys: 0, lua: RELEASE });
    this.redis.defineCommand('ohGateForget', { numberOfKeys: 0, lua: FORGET });
    this.redis.defineCommand('ohGateReclaim', { numberOfKeys: 0, lua: RECLAIM });
    this.livenessChecks.push(reconnectWhenSilent(this.redis));
  }

  /**
   * Offers pending deliveries, due at `dueMs` (default: now). One holding a slot is left as it is;
   * one already waiting keeps the earlier due time. Returns how many were new.
   */
  async enqueue(deliveries: readonly { endpointId: string; deliveryId: string; dueMs?: number }[], now = Date.now()): Promise<number> {
    return (await this.offer(deliveries, 0, now)).added;
  }

  /**
   * Offers deliveries as `enqueue` does, then grants up to `want` slots as `take` does, in the same
   * call: the worker that relayed them takes what it has room for without a second round trip,
   * and the other workers are woken only for what it left. Returns how many were new, and the
   * grants, circuit changes and next due time as `take` does.
   */
  async offer(deliveries: readonly { endpointId: string; deliveryId: string; dueMs?: number }[], want: number, now = Date.now()): Promise<Taken & { added: number }> {
    // An id that is no delivery's would be granted, fail its lease and be offered again for ever.
    const stray = deliveries.find((delivery) => !isUuid(delivery.deliveryId) || !isUuid(delivery.endpointId));
    if (stray) throw new Error(`not a delivery to offer: ${JSON.stringify(stray)}`);
    const result: Taken & { added: number } = { added: 0, grants: [], changes: [], nextAtMs: null };
    for (let start = 0; start < deliveries.length; start += CHUNK) {
      // Only the last chunk's call takes slots.
      const wanted = start + CHUNK >= deliveries.length ? want : 0;
      const args = deliveries.slice(start, start + CHUNK).flatMap((delivery) => [delivery.endpointId, delivery.deliveryId, Math.round(delivery.dueMs ?? now)]);
      const [added, ...taken] = await this.granting(wanted, (call) => this.redis.ohGateEnqueue(this.prefix, now, this.cap, wanted, this.cap, this.slotTtlMs, call, ...args));
      result.added += added;
      addTaken(result, taken);
    }
    return result;
  }

  /** Grants up to `want` slots, endpoints served in turn; says when the next waiting delivery is due (epoch ms), if any. */
  async take(want: number, now = Date.now()): Promise<Taken> {
    return addTaken({ grants: [], changes: [], nextAtMs: null }, await this.granting(want, (call) => this.redis.ohGateTake(this.prefix, now, this.cap, want, this.cap, this.slotTtlMs, call)));
  }

  /**
   * Frees slots and tells each endpoint's circuit what the attempt showed, then grants up to
   * `want` slots as `take` does. Returns the grants, the circuits that changed state and when the
   * next waiting delivery is due, as `take` does.
   */
  async release(releases: readonly SlotRelease[], want = 0, now = Date.now()): Promise<Taken> {
    const result: Taken = { grants: [], changes: [], nextAtMs: null };
    for (let start = 0; start < releases.length; start += CHUNK) {
      const wanted = start + CHUNK >= releases.length ? want : 0;
      const chunk = releases.slice(start, start + CHUNK);
      const taken = await this.granting(wanted, (call) => this.runRelease(chunk, wanted, call, now)).catch((error: unknown) => {
        this.unreleased.push({ releases: chunk, expiresAt: Date.now() + this.slotTtlMs });
        this.reclaimSoon();
        throw error;
      });
      addTaken(result, taken);
    }
    return result;
  }

  private runRelease(releases: readonly SlotRelease[], want: number, call: string, now: number): Promise<TakeReply> {
    const config = this.config;
    const args = releases.flatMap((release) => [release.endpointId, release.deliveryId, release.verdict, release.holdUntilMs ?? 0]);
    return this.redis.ohGateRelease(
      this.prefix,
      now,
      this.cap,
      config.WEBHOOK_CIRCUIT_FAILURES,
      config.WEBHOOK_CIRCUIT_COOLDOWN_MS,
      config.WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS,
      want,
      this.cap,
      this.slotTtlMs,
      call,
      ...args,
    );
  }

  /** Runs a script call that may grant up to `want` slots, under a call id of its own; if it fails, its slots are asked back. */
  private async granting<T>(want: number, run: (call: string) => Promise<T>): Promise<T> {
    if (want === 0) return run('');
    const call = randomUUID();
    try {
      return await run(call);
    } catch (error) {
      this.unanswered.set(call, Date.now() + this.slotTtlMs);
      this.reclaimSoon();
      throw error;
    }
  }

  private reclaimSoon(): void {
    if (!this.closing && (this.unanswered.size > 0 || this.unreleased.length > 0)) this.reclaimTimer ??= setTimeout(() => void this.reclaim(), RECLAIM_RETRY_MS);
  }

  /**
   * Asks back the slots of every call that got no answer, and releases again what every failed
   * release was to free; what Redis does not answer about yet is asked about again.
   */
  private async reclaim(): Promise<void> {
    this.reclaimTimer = undefined;
    // Not while the connection is down: each try would wait in ioredis's offline queue, to be sent
    // with every other one when it is back. The call itself, if it waits there, goes first then.
    if (this.redis.status !== 'ready') return this.reclaimSoon();
    const unreleased = this.unreleased.filter(({ expiresAt }) => Date.now() < expiresAt);
    this.unreleased = [];
    await Promise.all([
      ...unreleased.map(async (failed) => {
        // Judged when it runs (a circuit it opens opens then), and the deliveries wait again, due
        // now, as the slots' expiry would have left them: one given back meanwhile to wait for its
        // next attempt was refused by the gate while it still held its slot.
        const released = await this.runRelease(failed.releases, 0, '', Date.now())
          .then(() => this.offer(failed.releases, 0))
          .then(
            () => true,
            () => false,
          );
        if (!released) this.unreleased.push(failed);
      }),
      ...[...this.unanswered].map(async ([call, expiresAt]) => {
        // Its slots have expired by now, and been offered again.
        if (Date.now() >= expiresAt) {
          this.unanswered.delete(call);
          return;
        }
        const given = await this.redis.ohGateReclaim(this.prefix, Date.now(), this.cap, call).catch(() => undefined);
        if (given === undefined) return;
        this.unanswered.delete(call);
        if (given > 0) this.logger.warn({ slots: given }, 'delivery gate: took back slots granted in an answer that never arrived');
      }),
    ]);
    this.reclaimSoon();
  }

  /**
   * The circuits of these endpoints for an answer that shows them, or null when Redis cannot be
   * read (logged): the answer then comes without them rather than failing.
   */
  async circuitsShown(endpointIds: readonly string[]): Promise<Map<string, Circuit> | null> {
    return this.circuits(endpointIds).catch((error: unknown) => {
      this.logger.warn(`Endpoint circuits unread, answered without them: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    });
  }

  /** The circuits of these endpoints; one never opened (or whose state Redis lost) is closed. */
  async circuits(endpointIds: readonly string[], now = Date.now()): Promise<Map<string, Circuit>> {
    const pipeline = this.redis.pipeline();
    for (const id of endpointIds) pipeline.hmget(`${this.prefix}:ep:${id}`, 'state', 'opened_at', 'next_probe_at', 'hold_until');
    const answers = endpointIds.length === 0 ? [] : ((await pipeline.exec()) ?? []);
    return new Map<string, Circuit>(
      endpointIds.map((id, n): [string, Circuit] => {
        const [error, fields] = answers[n] as [Error | null, (string | null)[]];
        if (error) throw error;
        const [state, openedAt, nextProbeAt, holdUntil] = fields;
        const heldUntil = holdUntil !== null && Number(holdUntil) > now ? new Date(Number(holdUntil)) : null;
        if (state === null) return [id, { state: 'closed', openedAt: null, nextProbeAt: null, heldUntil }];
        // Past its cool-down an open circuit lets the next attempt through as its probe: half-open,
        // though the gate writes so only when it grants that probe.
        const shown = state === 'open' && Number(nextProbeAt) <= now ? 'half_open' : (state as CircuitState);
        return [id, { state: shown, openedAt: new Date(Number(openedAt)), nextProbeAt: new Date(Number(nextProbeAt)), heldUntil }];
      }),
    );
  }

  /**
   * Drops an endpoint's circuit and its hold when it stops being attempted (paused, deleted or
   * disabled: an open circuit would stay open, and counted, for ever), gets another URL (a circuit
   * and a Retry-After describe a receiver: the new one is tried at once) or is resumed (it starts
   * closed, as it starts afresh towards auto-disable). Its slots in flight keep counting against
   * its cap until their attempts end, whatever changed: a URL changed, or a pause and resume, over
   * and over, would otherwise send the cap again each time. Unless `sameReceiver` (a resume: the
   * receiver attempted again), what those attempts meet no longer counts for the endpoint.
   * Deliveries still waiting stay: served in turn again, or ended `endpoint_disabled`. Best
   * effort: without Redis the endpoint's change stands, and only the gauge of open circuits counts it.
   */
  async forget(endpointId: string, { sameReceiver = false } = {}, now = Date.now()): Promise<void> {
    await this.redis
      .ohGateForget(this.prefix, now, this.cap, endpointId, sameReceiver ? 0 : 1)
      .catch((error: Error) => this.logger.warn({ endpoint_id: endpointId, error: error.message }, 'endpoint changed: its circuit could not be dropped'));
  }

  /** Endpoints whose circuit is open or half-open. */
  openCircuits(): Promise<number> {
    return this.redis.scard(`${this.prefix}:open`);
  }

  /** What the gate holds for one endpoint: deliveries waiting, and slots taken. */
  async backlog(endpointId: string): Promise<{ waiting: number; inFlight: number }> {
    const [waiting, inFlight] = await Promise.all([this.redis.zcard(`${this.prefix}:ready:${endpointId}`), this.redis.zcard(`${this.prefix}:flight:${endpointId}`)]);
    return { waiting, inFlight };
  }

  /**
   * Calls `listener` whenever some worker or API process offers a delivery due now. Not awaited:
   * with Redis down at start the subscription waits for it (no command timeout; ioredis
   * subscribes again after every reconnect), and the dispatcher's idle poll covers the gap.
   */
  onWake(listener: () => void): void {
    if (!this.subscriber) {
      // No timeout and no limit of retries: a worker started while Redis is away subscribes once it
      // is back (after 20 reconnects ioredis gave the SUBSCRIBE up, and the worker never woke).
      this.subscriber = this.redis.duplicate({ connectionName: `${this.prefix}:gate-wake`, lazyConnect: false, commandTimeout: undefined, maxRetriesPerRequest: null });
      const warn = throttledWarning((message) => this.logger.warn(message));
      this.subscriber.on('error', (error: Error) => warn(`delivery gate wake-ups: Redis: ${error.message}`));
      this.livenessChecks.push(reconnectWhenSilent(this.subscriber));
    }
    this.subscriber.on('message', listener);
    this.subscriber.subscribe(`${this.prefix}:wake`).catch((error: Error) => this.logger.warn(`delivery gate wake-ups: subscribing failed: ${error.message}`));
  }

  /** Calls `listener` each time the gate's connection is ready: when it first connects, and after each reconnect. */
  onReady(listener: () => void): void {
    this.redis.on('ready', listener);
  }

  /** Last of all: the dispatcher's shutdown (before it) still frees the slots of the attempts it waits for. */
  async onApplicationShutdown(): Promise<void> {
    for (const stop of this.livenessChecks) stop();
    this.closing = true;
    clearTimeout(this.reclaimTimer);
    await Promise.all(
      // QUIT only on a live connection: while Redis is down it would wait in the offline queue.
      [this.subscriber, this.redis].map(async (client) => {
        if (client?.status !== 'ready') return client?.disconnect();
        await client.quit().catch(() => client.disconnect());
      }),
    );
  }
}
