import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../platform/config/app-config.js';
import { excludePublishing } from '../../platform/events/event-publisher.service.js';
import { TenantData, type TenantScope } from '../../platform/tenancy/tenant-data.js';
import type { WebhookDisabledReason } from '../webhook-endpoint.entity.js';
import { DeliveryGate } from './gate/delivery-gate.js';
import { StatementBatcher } from './statement-batcher.js';

interface Failure {
  tenantId: string;
  endpointId: string;
  now: Date;
  dead: boolean;
}

/** An endpoint's failures since it last became active, as the rules read them. */
interface Streak {
  recent: number;
  recent_all_gone: boolean;
  n: number;
  since: Date | null;
  last_success_at: Date | null;
  /** status_changed_at in UTC to the microsecond, whatever the session's DateStyle and TimeZone (a Date keeps milliseconds). */
  active_since: string;
}

/**
 * Where an endpoint's failures stand, in one statement, each part an index probe however long
 * the endpoint has been failing: the last success comes from the partial index of successes,
 * the streak's start is the first attempt after it, and the streak is counted only as far as the
 * threshold it is compared with. A streak also starts again when the endpoint became active
 * (created or resumed): resuming an auto-disabled endpoint gives it a new chance, not one more
 * failure to lose it by.
 *
 * Prepared as STREAK_STATEMENT on every worker session at start (DeliveryStore): it runs when a
 * receiver goes down, as its requests all time out at once. Sent unnamed, it was parsed and
 * planned there, about 10 ms of PostgreSQL's time per endpoint under that load, on the cores
 * every other company's relay and leases were waiting for (docs/benchmarks.md).
 */
export const STREAK_SQL = `WITH endpoint AS (
     -- By primary key: the company is tested as a filter (NOT DISTINCT FROM is not an index
     -- condition), or a plan made while the table was young walks the company's endpoints.
     SELECT status_changed_at FROM webhook_endpoints WHERE id = $2 AND tenant_id IS NOT DISTINCT FROM $1
   ), last_success AS (
     SELECT started_at AS at FROM webhook_delivery_attempts
      WHERE tenant_id = $1 AND endpoint_id = $2 AND response_status BETWEEN 200 AND 299
      ORDER BY started_at DESC LIMIT 1
   ), streak_start AS (
     SELECT greatest(coalesce((SELECT at FROM last_success), '-infinity'), status_changed_at) AS at FROM endpoint
   ), recent AS (
     SELECT response_status FROM webhook_delivery_attempts
      WHERE tenant_id = $1 AND endpoint_id = $2 AND started_at > (SELECT at FROM streak_start) ORDER BY started_at DESC LIMIT $3
   )
   SELECT (SELECT count(*)::int FROM recent) AS recent,
          (SELECT bool_and(response_status IS NOT DISTINCT FROM 410) FROM recent) AS recent_all_gone,
          (SELECT count(*)::int FROM (
             SELECT 1 FROM webhook_delivery_attempts
              WHERE tenant_id = $1 AND endpoint_id = $2 AND started_at > (SELECT at FROM streak_start) LIMIT $4
          ) AS capped) AS n,
          (SELECT min(started_at) FROM webhook_delivery_attempts
            WHERE tenant_id = $1 AND endpoint_id = $2 AND started_at > (SELECT at FROM streak_start)) AS since,
          (SELECT at FROM last_success) AS last_success_at,
          (SELECT to_char(status_changed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') FROM endpoint) AS active_since`;
export const STREAK_STATEMENT = 'webhook-endpoint-streak';

/**
 * A round of judgements that would start less than this after the previous one ended waits
 * this long, so that the failures of one outage share it. A receiver's requests time out in
 * the order they were sent, a few milliseconds apart, and each had its own round: 50 streak
 * statements in the 300 ms after five hung endpoints' requests timed out, on the cores the other
 * companies' relays were waiting for (docs/benchmarks.md, "The thirtieth session"). The rules
 * count attempts over days, or three 410s in a row; a fifth of a second later changes none of
 * their verdicts. A failure after a quiet moment is still judged at once.
 */
const JUDGEMENT_LINGER_MS = 200;

type AutoDisableReason = Extract<WebhookDisabledReason, 'auto_consecutive_failures' | 'auto_410_repeat' | 'auto_7_day_all_dead'>;

/**
 * Switches off endpoints that keep failing (spec section 3), judged from the attempts table
 * with the times the attempts were recorded at (the injectable WebhookClock). Thresholds are
 * configuration; the defaults follow Svix and Stripe (see README):
 *
 * - `auto_410_repeat`: the last WEBHOOK_DISABLE_GONE_STREAK (3) attempts all answered 410.
 * - `auto_consecutive_failures`: WEBHOOK_DISABLE_CONSECUTIVE_FAILURES (100) failed attempts in a
 *   row whose first is at least WEBHOOK_DISABLE_FAILURE_PERIOD_MS (5 days) old.
 * - `auto_7_day_all_dead`: when a delivery goes dead, the endpoint has been attempted for at
 *   least WEBHOOK_DISABLE_ALL_DEAD_PERIOD_MS (7 days) and no attempt in that period succeeded.
 *
 * Each rule counts only attempts since the endpoint last became active, so a resumed endpoint
 * starts afresh. Only an active endpoint is switched off; the transition and its reason are one
 * UPDATE.
 */
@Injectable()
export class AutoDisable {
  private readonly logger = new Logger(AutoDisable.name);
  private readonly judgements = new StatementBatcher((failures: Failure[]) => this.judgeTogether(failures), 100, JUDGEMENT_LINGER_MS);

  constructor(
    @Inject(TenantData) private readonly data: TenantData,
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(DeliveryGate) private readonly gate: DeliveryGate,
  ) {}

  /**
   * Called after a failed attempt of the endpoint; `dead` when it was the delivery's last.
   * Failures arriving together (a receiver going down times out every request in flight to it
   * at once) are judged together: one round of judgements at a time, and the failures made
   * meanwhile, or within JUDGEMENT_LINGER_MS of its end, join the next, each endpoint judged
   * once per round at its latest failure's time.
   * One endpoint's outage thus takes one database connection at a time, not one per attempt,
   * and the other endpoints' leases and outcomes do not queue behind it.
   */
  async afterFailure(tenantId: string, endpointId: string, now: Date, dead: boolean): Promise<void> {
    const error = await this.judgements.submit({ tenantId, endpointId, now, dead });
    if (error !== undefined) throw error;
  }

  /** One judgement per endpoint, `dead` if any of its failures was; answers each failure its endpoint's error, if any. */
  private async judgeTogether(failures: Failure[]): Promise<unknown[]> {
    const latest = new Map<string, Failure>();
    for (const failure of failures) {
      const seen = latest.get(failure.endpointId);
      latest.set(failure.endpointId, seen ? { ...failure, now: failure.now > seen.now ? failure.now : seen.now, dead: seen.dead || failure.dead } : failure);
    }
    const judged = [...latest.values()];
    const settled = await Promise.allSettled(judged.map(({ tenantId, endpointId, now, dead }) => this.judge(tenantId, endpointId, now, dead)));
    const errors = new Map(judged.map(({ endpointId }, n) => [endpointId, settled[n].status === 'rejected' ? settled[n].reason : undefined]));
    return failures.map((failure) => errors.get(failure.endpointId));
  }

  private async judge(tenantId: string, endpointId: string, now: Date, dead: boolean): Promise<AutoDisableReason | null> {
    const scope = this.data.forTenant(tenantId);
    const verdict = await this.reasonToDisable(scope, endpointId, now, dead);
    if (verdict === null) return null;
    // Only the activity the evidence was read for: an endpoint paused and resumed since then
    // (resumed by its owner after a fix) starts afresh, and is not disabled on the old failures.
    const disabled = await this.data.transaction(tenantId, async (disabling) => {
      // The row first, then the publishing lock: the order every change of an endpoint takes them in (no deadlock with a pause).
      const [row] = await disabling.query(
        `SELECT id FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2 AND status = 'active' AND status_changed_at = ($3::timestamp AT TIME ZONE 'UTC') FOR UPDATE`,
        [endpointId, verdict.activeSince],
      );
      if (!row) return false;
      await excludePublishing(disabling);
      await disabling.query(
        `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $3, status_changed_at = clock_timestamp(), updated_at = clock_timestamp()
          WHERE tenant_id = $1 AND id = $2`,
        [endpointId, verdict.reason],
      );
      return true;
    });
    if (!disabled) return null;
    this.logger.warn({ endpoint_id: endpointId, reason: verdict.reason }, 'webhook endpoint disabled after repeated failures');
    // A disabled endpoint is never attempted again: its circuit goes.
    await this.gate.forget(endpointId);
    return verdict.reason;
  }

  /** Why the endpoint is to be disabled, if it is, with when it became active as read (text, to the microsecond). */
  private async reasonToDisable(scope: TenantScope, endpointId: string, now: Date, dead: boolean): Promise<{ reason: AutoDisableReason; activeSince: string } | null> {
    const config = this.config;
    const [streak] = await scope.hotQuery<Streak>(STREAK_STATEMENT, STREAK_SQL, [endpointId, config.WEBHOOK_DISABLE_GONE_STREAK, config.WEBHOOK_DISABLE_CONSECUTIVE_FAILURES]);
    const reason = this.ruleMet(streak, now, dead);
    return reason === null ? null : { reason, activeSince: streak.active_since };
  }

  private ruleMet(streak: Streak, now: Date, dead: boolean): AutoDisableReason | null {
    const config = this.config;
    if (streak.recent >= config.WEBHOOK_DISABLE_GONE_STREAK && streak.recent_all_gone) return 'auto_410_repeat';

    const since: Date | null = streak.since;
    if (since && streak.n >= config.WEBHOOK_DISABLE_CONSECUTIVE_FAILURES && now.getTime() - since.getTime() >= config.WEBHOOK_DISABLE_FAILURE_PERIOD_MS) {
      return 'auto_consecutive_failures';
    }
    if (dead && since) {
      const lastSuccess: Date | null = streak.last_success_at;
      const period = config.WEBHOOK_DISABLE_ALL_DEAD_PERIOD_MS;
      const failingFor = now.getTime() - since.getTime();
      const noSuccessInPeriod = lastSuccess === null || now.getTime() - lastSuccess.getTime() >= period;
      if (failingFor >= period && noSuccessInPeriod) return 'auto_7_day_all_dead';
    }
    return null;
  }
}
