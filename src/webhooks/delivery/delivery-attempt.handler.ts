import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AccessService } from '../../platform/access/access.service.js';
import { AppConfig } from '../../platform/config/app-config.js';
import { hotQuery } from '../../platform/database/hot-query.js';
import type { EventEnvelope } from '../../platform/events/event-envelope.js';
import { WebhookSecretBox } from '../secrets/webhook-secret-box.js';
import { WEBHOOK_DNS_RESOLVER, type WebhookDnsResolver } from '../url-safety/webhook-dns-resolver.js';
import { WebhookUrlChecker, WebhookUrlRefusedException } from '../url-safety/webhook-url-checker.js';
import type { WebhookEndpointStatus } from '../webhook-endpoint.entity.js';
import { AutoDisable } from './auto-disable.service.js';
import { attemptOutcomeLabel, DeliveryMetrics } from './delivery-metrics.js';
import type { Grant, ReceiverVerdict } from './gate/delivery-gate.js';
import { retryAfterMs, retryDelayMs } from './retry-policy.js';
import type { DeliveryErrorClass, DeliveryStatus } from './webhook-delivery.entity.js';
import { deliveryRefusal, entitlementKeyOf, type KeyColumns } from './webhook-entitlement.js';
import { WebhookClock } from './webhook-clock.js';
import { renderEnvelope } from './webhook-envelope.js';
import { StatementBatcher } from './statement-batcher.js';
import { VettedUrlCache } from './vetted-url-cache.js';
import { type SendErrorKind, type SendResult, WebhookSender } from './webhook-sender.js';
import { signWebhook } from './webhook-signature.js';

/** Extra time an attempt's lease lasts beyond the receiver timeout, for recording the outcome. */
const LEASE_MARGIN_MS = 5000;
/** A job may run this much before its delivery's next_attempt_at (timer and clock granularity). */
const EARLY_TOLERANCE_MS = 50;

/** What one claim of a delivery brings back: the delivery, its event, endpoint and owning key. */
interface ClaimedDelivery extends KeyColumns {
  id: string;
  tenant_id: string;
  endpoint_id: string;
  event_type: string;
  api_version: string;
  attempt: number;
  replayed_from: string | null;
  envelope: EventEnvelope;
  url: string;
  endpoint_status: WebhookEndpointStatus;
  pii_enabled: boolean;
  secret_ciphertext: Buffer;
  previous_secret_ciphertext: Buffer | null;
  previous_secret_expires_at: Date | null;
}

interface Outcome {
  status: DeliveryStatus;
  errorClass: DeliveryErrorClass | null;
  /** Milliseconds until the next attempt, when one follows. */
  retryInMs: number | null;
}

/**
 * Called once per attempt, as soon as the receiver is done with it (or at once when nothing is
 * sent): frees the endpoint's slot for its next delivery while this one is still being recorded.
 */
export type FreeSlot = (verdict: ReceiverVerdict, holdUntilMs: number | null) => void;

interface FinishCall {
  deliveryId: string;
  token: string;
  outcome: Outcome;
  record: (AttemptRecord & { attempt: number }) | null;
}

type AttemptRecord = { startedAt: Date; durationMs: number } & (
  | { responseStatus: number; body: string; retryAfter: string | undefined }
  | { errorKind: SendErrorKind }
);

/**
 * Makes one attempt of one delivery, once the delivery gate has granted it a slot of its
 * endpoint. PostgreSQL decides: the attempt first leases the pending delivery (so no two workers
 * ever send it at the same time, whatever the gate offered twice), re-checks the endpoint, the
 * owning key, the personal-data grant and the URL, then signs and POSTs, and records the attempt
 * and the delivery's new state together. Answers when the delivery is due again, if it is.
 */
@Injectable()
export class DeliveryAttemptHandler {
  private readonly logger = new Logger(DeliveryAttemptHandler.name);
  private readonly userAgent: string;
  private readonly vettedUrls = new VettedUrlCache();
  private readonly claims = new StatementBatcher((calls: { deliveryId: string; token: string }[]) => this.claimMany(calls));
  private readonly finishes = new StatementBatcher((calls: FinishCall[]) => this.finishMany(calls));

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(WebhookSender) private readonly sender: WebhookSender,
    @Inject(WebhookUrlChecker) private readonly urls: WebhookUrlChecker,
    @Inject(WEBHOOK_DNS_RESOLVER) private readonly resolver: WebhookDnsResolver,
    @Inject(WebhookSecretBox) private readonly secrets: WebhookSecretBox,
    @Inject(AutoDisable) private readonly autoDisable: AutoDisable,
    @Inject(WebhookClock) private readonly clock: WebhookClock,
    @Inject(AccessService) private readonly access: AccessService,
    @Inject(DeliveryMetrics) private readonly metrics: DeliveryMetrics,
  ) {
    this.userAgent = `OH-Webhooks/1.0 (+${config.publicBaseUrl})`;
  }

  /** Returns when (epoch ms) the delivery is due again, or null when it needs no further attempt. */
  async attempt(grant: Grant, freeSlot: FreeSlot): Promise<number | null> {
    const token = randomUUID();
    const delivery = await this.claim(grant.deliveryId, token);
    if (!delivery) {
      freeSlot('none', null);
      return this.unclaimable(grant.deliveryId);
    }

    const now = this.clock.now();
    const key = entitlementKeyOf(delivery);
    const refusal = deliveryRefusal(this.access, { status: delivery.endpoint_status, piiEnabled: delivery.pii_enabled }, key, delivery.event_type, now);
    if (refusal !== null) {
      freeSlot('none', null);
      await this.finish(delivery, token, { status: 'failed', errorClass: refusal, retryInMs: null }, null);
      return null;
    }

    const attempt = delivery.attempt + 1;
    if (attempt === 1 && delivery.replayed_from === null) {
      this.metrics.firstAttemptLatency.observe(Math.max(0, Date.now() - Date.parse(delivery.envelope.created_at)) / 1000);
    }
    const record = await this.send(delivery, now);
    const outcome = this.judge(attempt, record, now);
    freeSlot(receiverVerdict(record), this.holdUntil(record));
    this.observe(delivery, attempt, record, outcome);
    await this.finish(delivery, token, outcome, { ...record, attempt });

    if (outcome.status !== 'delivered') await this.autoDisable.afterFailure(delivery.tenant_id, delivery.endpoint_id, now, outcome.status === 'dead');
    return outcome.retryInMs === null ? null : Date.now() + outcome.retryInMs;
  }

  /** The per-attempt metrics and log line: no body, no header, no secret. */
  private observe(delivery: ClaimedDelivery, attempt: number, record: AttemptRecord, outcome: Outcome): void {
    const label = attemptOutcomeLabel(record);
    this.metrics.attempts.inc({ outcome: label });
    this.metrics.attemptDuration.observe({ outcome: label }, record.durationMs / 1000);
    this.logger.log(
      {
        endpoint_id: delivery.endpoint_id,
        delivery_id: delivery.id,
        attempt,
        ...('responseStatus' in record ? { status: record.responseStatus } : { error_kind: record.errorKind }),
        duration_ms: record.durationMs,
        outcome: outcome.status,
      },
      'webhook attempt',
    );
  }

  /**
   * A 429 or 503 with a readable Retry-After holds the whole endpoint back until then, at most
   * WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS: the receiver asked for no more requests for a while. In the
   * gate's time (the real clock), whatever clock the attempt is judged by.
   */
  private holdUntil(record: AttemptRecord): number | null {
    if (!('responseStatus' in record)) return null;
    const wait = retryAfterMs(record.responseStatus, record.retryAfter, new Date());
    return wait === undefined ? null : Date.now() + Math.min(wait, this.config.WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS);
  }

  /**
   * Leases the delivery for this attempt if it is pending, due, and not leased by another.
   * Batched: one statement leases every delivery whose attempt asked meanwhile. A row locked by
   * another transaction at that moment is skipped (never waited for, so two batches cannot
   * deadlock); its attempt is unclaimable and offered again when it can be taken. The repeated `d.id = ANY($1)`
   * keeps PostgreSQL on the primary key instead of scanning the table for the join. "Pending" is
   * tested as `next_attempt_at` being set (equivalent by the table's check constraint), not as
   * `status = 'pending'`: that test let PostgreSQL pick the index of pending deliveries, which
   * its statistics still showed nearly empty during a burst, and scan every pending delivery for
   * each batch.
   */
  private claim(deliveryId: string, token: string): Promise<ClaimedDelivery | undefined> {
    return this.claims.submit({ deliveryId, token });
  }

  private async claimMany(calls: { deliveryId: string; token: string }[]): Promise<(ClaimedDelivery | undefined)[]> {
    const rows = await hotQuery<ClaimedDelivery & { lease_token: string }>(
      this.dataSource,
      'webhook-delivery-claim',
      `WITH wanted AS (
         SELECT d.id FROM webhook_deliveries d
          WHERE d.id = ANY($1::uuid[]) AND d.next_attempt_at <= clock_timestamp() + $4 * interval '1 millisecond'
            AND (d.leased_until IS NULL OR d.leased_until < clock_timestamp())
            FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d SET leased_until = clock_timestamp() + $3 * interval '1 millisecond', lease_token = x.token
           FROM wanted w JOIN unnest($1::uuid[], $2::uuid[]) AS x(id, token) ON x.id = w.id
          WHERE d.id = w.id AND d.id = ANY($1::uuid[])
          RETURNING d.id, d.lease_token, d.tenant_id, d.endpoint_id, d.event_id, d.event_type, d.api_version, d.attempt, d.replayed_from
       )
       SELECT c.id, c.lease_token, c.tenant_id, c.endpoint_id, c.event_type, c.api_version, c.attempt, c.replayed_from, e.envelope,
              w.url, w.status AS endpoint_status, w.pii_enabled, w.secret_ciphertext, w.previous_secret_ciphertext,
              w.previous_secret_expires_at, k.scopes, k.revoked_at, k.expires_at, k.deleted_at
         FROM claimed c
         JOIN events e ON e.tenant_id = c.tenant_id AND e.id = c.event_id
         JOIN webhook_endpoints w ON w.tenant_id = c.tenant_id AND w.id = c.endpoint_id
         LEFT JOIN api_keys k ON k.tenant_id = w.tenant_id AND k.id = w.api_key_id`,
      [calls.map((call) => call.deliveryId), calls.map((call) => call.token), this.config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS, EARLY_TOLERANCE_MS],
    );
    // The same delivery asked twice in one batch is leased once: only the token written wins.
    const byToken = new Map(rows.map(({ lease_token, ...row }) => [lease_token, row]));
    return calls.map((call) => byToken.get(call.token));
  }

  /** A delivery that could not be leased: nothing more if it ended, else due again when it is due or its lease ends. */
  private async unclaimable(deliveryId: string): Promise<number | null> {
    const [row] = await this.dataSource.query(
      `SELECT status, extract(epoch FROM greatest(next_attempt_at, leased_until) - clock_timestamp()) * 1000 AS wait_ms
         FROM webhook_deliveries WHERE id = $1`,
      [deliveryId],
    );
    if (!row || row.status !== 'pending') return null;
    return Date.now() + Math.max(10, Math.ceil(Number(row.wait_ms)));
  }

  private async send(delivery: ClaimedDelivery, now: Date): Promise<AttemptRecord> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const vetted = await this.vet(delivery.url);
    if ('errorKind' in vetted) return { startedAt: now, durationMs: elapsed(), errorKind: vetted.errorKind };
    const body = renderEnvelope(delivery.envelope, delivery.api_version);
    const signatures = signWebhook(this.secrets.signingSecrets(signingInput(delivery), now), delivery.envelope.id, Math.floor(now.getTime() / 1000), body);
    const result: SendResult = await this.sender.send({
      url: vetted.url,
      ipv4: vetted.ipv4,
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': this.userAgent,
        'idempotency-key': delivery.envelope.id,
        ...signatures,
      },
    });
    if ('errorKind' in result) return { startedAt: now, durationMs: elapsed(), errorKind: result.errorKind };
    return { startedAt: now, durationMs: elapsed(), responseStatus: result.status, body: result.body, retryAfter: result.retryAfter };
  }

  /**
   * The URL checked again (spec 6.9): a refusal is `ssrf` unless the name no longer resolves at
   * all (`dns`, retried); a name with no A record cannot be delivered over IPv4 (`dns`, retried).
   * An approval is reused for at most a second (VettedUrlCache).
   */
  private async vet(rawUrl: string): Promise<{ url: URL; ipv4: string } | { errorKind: 'ssrf' | 'dns' }> {
    try {
      const nowMs = Date.now();
      let vetted = this.vettedUrls.get(rawUrl, nowMs);
      if (vetted === undefined) {
        vetted = await this.urls.vet(rawUrl);
        this.vettedUrls.set(rawUrl, vetted, nowMs);
      }
      if (vetted.ipv4.length === 0) return { errorKind: 'dns' };
      return { url: vetted.url, ipv4: vetted.ipv4[0] };
    } catch (error) {
      if (!(error instanceof WebhookUrlRefusedException)) throw error;
      if (error.stage !== 'url') return { errorKind: error.stage === 'unresolved' ? 'dns' : 'ssrf' };
      // Refused before any lookup (scheme, credentials, an IP address): a dns error only if the name is gone too.
      const resolves = await this.resolver.lookup(new URL(rawUrl).hostname).then(
        (records) => records.length > 0,
        () => false,
      );
      return { errorKind: resolves ? 'ssrf' : 'dns' };
    }
  }

  /** The delivery's next state after attempt number `attempt`. */
  private judge(attempt: number, record: AttemptRecord, now: Date): Outcome {
    if ('errorKind' in record && record.errorKind === 'ssrf') return { status: 'failed', errorClass: 'ssrf_rejected', retryInMs: null };
    if ('responseStatus' in record) {
      if (record.responseStatus >= 200 && record.responseStatus <= 299) return { status: 'delivered', errorClass: null, retryInMs: null };
      if (record.responseStatus === 410) return { status: 'failed', errorClass: 'gone', retryInMs: null };
    }
    const retryAfter = 'responseStatus' in record ? retryAfterMs(record.responseStatus, record.retryAfter, now) : undefined;
    const wait = retryDelayMs(attempt, this.config.WEBHOOK_RETRY_SCHEDULE_MS, Math.random, retryAfter);
    return wait === null ? { status: 'dead', errorClass: null, retryInMs: null } : { status: 'pending', errorClass: null, retryInMs: wait };
  }

  /**
   * Records the attempt (if one was made) and the delivery's new state in one statement, and
   * releases the lease — only if this attempt still holds it. Batched like the lease.
   */
  private async finish(delivery: ClaimedDelivery, token: string, outcome: Outcome, record: (AttemptRecord & { attempt: number }) | null): Promise<void> {
    const recorded = await this.finishes.submit({ deliveryId: delivery.id, token, outcome, record });
    if (!recorded) this.logger.warn({ delivery_id: delivery.id }, 'attempt outcome not recorded: the lease had expired');
  }

  private async finishMany(calls: FinishCall[]): Promise<boolean[]> {
    const column = <T>(pick: (call: FinishCall) => T) => calls.map(pick);
    const updated = await hotQuery<{ lease_token: string }>(
      this.dataSource,
      'webhook-delivery-finish',
      `WITH x AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::int[], $5::timestamptz[], $6::int[], $7::int[], $8::text[], $9::text[], $10::text[], $11::float8[])
           AS x(id, token, status, attempt, started_at, duration_ms, response_status, error_kind, response_body, error_class, retry_in_ms)
       ), recorded AS (
         INSERT INTO webhook_delivery_attempts (tenant_id, delivery_id, endpoint_id, attempt, started_at, duration_ms, response_status, error_kind, response_body)
         SELECT d.tenant_id, d.id, d.endpoint_id, x.attempt, x.started_at, x.duration_ms, x.response_status, x.error_kind, x.response_body
           FROM x JOIN webhook_deliveries d ON d.id = x.id AND d.lease_token = x.token
          WHERE x.attempt IS NOT NULL AND d.id = ANY($1::uuid[])
       )
       UPDATE webhook_deliveries d
          SET status = x.status, attempt = coalesce(x.attempt, d.attempt), error_class = x.error_class,
              next_attempt_at = CASE WHEN x.status = 'pending' THEN clock_timestamp() + x.retry_in_ms * interval '1 millisecond' END,
              last_response_status = CASE WHEN x.attempt IS NULL THEN d.last_response_status ELSE x.response_status END,
              leased_until = NULL, lease_token = NULL, updated_at = clock_timestamp()
         FROM x
        WHERE d.id = x.id AND d.lease_token = x.token AND d.id = ANY($1::uuid[])
        RETURNING x.token AS lease_token`,
      [
        column((call) => call.deliveryId),
        column((call) => call.token),
        column((call) => call.outcome.status),
        column((call) => call.record?.attempt ?? null),
        column((call) => call.record?.startedAt ?? null),
        column((call) => call.record?.durationMs ?? null),
        column((call) => (call.record && 'responseStatus' in call.record ? call.record.responseStatus : null)),
        column((call) => (call.record && 'errorKind' in call.record ? call.record.errorKind : null)),
        column((call) => (call.record && 'body' in call.record ? call.record.body : null)),
        column((call) => call.outcome.errorClass),
        column((call) => call.outcome.retryInMs ?? 0),
      ],
    );
    const done = new Set(updated.map((row) => row.lease_token));
    return calls.map((call) => done.has(call.token));
  }
}

/** What an attempt showed of the receiver, for its endpoint's circuit. */
function receiverVerdict(record: AttemptRecord): ReceiverVerdict {
  if ('responseStatus' in record) return record.responseStatus >= 500 ? 'down' : 'up';
  return record.errorKind === 'ssrf' ? 'none' : 'down';
}

function signingInput(delivery: ClaimedDelivery) {
  return {
    secretCiphertext: delivery.secret_ciphertext,
    previousSecretCiphertext: delivery.previous_secret_ciphertext,
    previousSecretExpiresAt: delivery.previous_secret_expires_at,
  };
}
