import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../platform/config/app-config.js';
import { TenantData, type TenantScope } from '../../platform/tenancy/tenant-data.js';
import type { WebhookDisabledReason } from '../webhook-endpoint.entity.js';

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
 * Only an active endpoint is switched off; the transition and its reason are one UPDATE.
 */
@Injectable()
export class AutoDisable {
  private readonly logger = new Logger(AutoDisable.name);
  /** Per endpoint, the judgement in progress in this process. */
  private readonly running = new Map<string, Promise<unknown>>();
  /** Per endpoint, the one judgement waiting for it, which every failure meanwhile joins. */
  private readonly waiting = new Map<string, { now: Date; dead: boolean; done: Promise<void> }>();

  constructor(
    @Inject(TenantData) private readonly data: TenantData,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  /**
   * Called after a failed attempt of the endpoint; `dead` when it was the delivery's last.
   * Failures of one endpoint arriving together (a receiver going down times out every request
   * in flight to it at once) are judged together: at most one judgement runs per endpoint, and
   * one more follows it for all the failures it did not see, at the latest failure's time. One
   * endpoint's outage thus takes one database connection at a time, not one per attempt, and
   * the other endpoints' leases and outcomes do not queue behind it.
   */
  afterFailure(tenantId: string, endpointId: string, now: Date, dead: boolean): Promise<void> {
    const waiting = this.waiting.get(endpointId);
    if (waiting) {
      if (now > waiting.now) waiting.now = now;
      waiting.dead ||= dead;
      return waiting.done;
    }
    const previous = this.running.get(endpointId) ?? Promise.resolve();
    const next = { now, dead, done: Promise.resolve() };
    next.done = previous
      .catch(() => undefined)
      .then(async () => {
        this.waiting.delete(endpointId);
        const judged = this.judge(tenantId, endpointId, next.now, next.dead);
        this.running.set(endpointId, judged);
        try {
          await judged;
        } finally {
          if (this.running.get(endpointId) === judged) this.running.delete(endpointId);
        }
      });
    this.waiting.set(endpointId, next);
    return next.done;
  }

  private async judge(tenantId: string, endpointId: string, now: Date, dead: boolean): Promise<AutoDisableReason | null> {
    const scope = this.data.forTenant(tenantId);
    const reason = await this.reasonToDisable(scope, endpointId, now, dead);
    if (reason === null) return null;
    const changed = await scope.query(
      `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $3, status_changed_at = clock_timestamp(), updated_at = clock_timestamp()
        WHERE tenant_id = $1 AND id = $2 AND status = 'active' RETURNING id`,
      [endpointId, reason],
    );
    if (changed.length === 0) return null;
    this.logger.warn({ endpoint_id: endpointId, reason }, 'webhook endpoint disabled after repeated failures');
    return reason;
  }

  private async reasonToDisable(scope: TenantScope, endpointId: string, now: Date, dead: boolean): Promise<AutoDisableReason | null> {
    const config = this.config;
    // One statement, each part an index probe however long the endpoint has been failing: the last
    // success comes from the partial index of successes, the streak's start is the first attempt
    // after it, and the streak is counted only as far as the threshold it is compared with.
    const [streak] = await scope.query<{ recent: number; recent_all_gone: boolean; n: number; since: Date | null; last_success_at: Date | null }>(
      `WITH last_success AS (
         SELECT started_at AS at FROM webhook_delivery_attempts
          WHERE tenant_id = $1 AND endpoint_id = $2 AND response_status BETWEEN 200 AND 299
          ORDER BY started_at DESC LIMIT 1
       ), recent AS (
         SELECT response_status FROM webhook_delivery_attempts WHERE tenant_id = $1 AND endpoint_id = $2 ORDER BY started_at DESC LIMIT $3
       )
       SELECT (SELECT count(*)::int FROM recent) AS recent,
              (SELECT bool_and(response_status IS NOT DISTINCT FROM 410) FROM recent) AS recent_all_gone,
              (SELECT count(*)::int FROM (
                 SELECT 1 FROM webhook_delivery_attempts
                  WHERE tenant_id = $1 AND endpoint_id = $2 AND started_at > coalesce((SELECT at FROM last_success), '-infinity') LIMIT $4
              ) AS capped) AS n,
              (SELECT min(started_at) FROM webhook_delivery_attempts
                WHERE tenant_id = $1 AND endpoint_id = $2 AND started_at > coalesce((SELECT at FROM last_success), '-infinity')) AS since,
              (SELECT at FROM last_success) AS last_success_at`,
      [endpointId, config.WEBHOOK_DISABLE_GONE_STREAK, config.WEBHOOK_DISABLE_CONSECUTIVE_FAILURES],
    );
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
