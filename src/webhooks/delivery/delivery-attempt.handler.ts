import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AccessService } from '../../platform/access/access.service.js';
import { AppConfig } from '../../platform/config/app-config.js';
import { fieldLineLogger } from '../../platform/logging/logger.js';
import { type Logger as PinoLogger, PINO_LOGGER } from '../../platform/logging/logging.module.js';
import { WebhookSecretBox } from '../secrets/webhook-secret-box.js';
import { WEBHOOK_DNS_RESOLVER, type WebhookDnsResolver } from '../url-safety/webhook-dns-resolver.js';
import { WebhookUrlChecker, WebhookUrlRefusedException } from '../url-safety/webhook-url-checker.js';
import { AutoDisable } from './auto-disable.service.js';
import { attemptOutcomeLabel, DeliveryMetrics } from './delivery-metrics.js';
import { type AttemptRecord, DeliveryStore, type LeasedDelivery, type Outcome } from './delivery-store.js';
import type { Grant, ReceiverVerdict } from './gate/delivery-gate.js';
import { retryAfterMs, retryDelayMs } from './retry-policy.js';
import { deliveryRefusal, entitlementKeyOf, keyPauseReason } from './webhook-entitlement.js';
import { WebhookClock } from './webhook-clock.js';
import { renderEnvelope } from './webhook-envelope.js';
import { VettedUrlCache } from './vetted-url-cache.js';
import { type SendResult, WebhookSender } from './webhook-sender.js';
import { signWebhook } from './webhook-signature.js';

/**
 * Called once per attempt, as soon as the receiver is done with it (or at once when nothing is
 * sent): frees the endpoint's slot for its next delivery while this one is still being recorded.
 */
export type FreeSlot = (verdict: ReceiverVerdict, holdUntilMs: number | null) => void;

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
  private readonly attemptLines: PinoLogger;
  private readonly userAgent: string;
  private readonly vettedUrls = new VettedUrlCache();

  constructor(
    @Inject(DeliveryStore) private readonly store: DeliveryStore,
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(WebhookSender) private readonly sender: WebhookSender,
    @Inject(WebhookUrlChecker) private readonly urls: WebhookUrlChecker,
    @Inject(WEBHOOK_DNS_RESOLVER) private readonly resolver: WebhookDnsResolver,
    @Inject(WebhookSecretBox) private readonly secrets: WebhookSecretBox,
    @Inject(AutoDisable) private readonly autoDisable: AutoDisable,
    @Inject(WebhookClock) private readonly clock: WebhookClock,
    @Inject(AccessService) private readonly access: AccessService,
    @Inject(DeliveryMetrics) private readonly metrics: DeliveryMetrics,
    @Inject(PINO_LOGGER) pino: PinoLogger,
  ) {
    this.attemptLines = fieldLineLogger(pino, { context: DeliveryAttemptHandler.name });
    this.userAgent = `OH-Webhooks/1.0 (+${config.publicBaseUrl})`;
  }

  /** Returns when (epoch ms) the delivery is due again, or null when it needs no further attempt. */
  async attempt(grant: Grant, freeSlot: FreeSlot): Promise<number | null> {
    const token = randomUUID();
    const delivery = await this.store.lease(grant.deliveryId, token);
    if (!delivery) {
      freeSlot('none', null);
      return this.store.dueAgainAt(grant.deliveryId);
    }

    const now = this.clock.now();
    const key = entitlementKeyOf(delivery);
    const refusal = deliveryRefusal(this.access, { status: delivery.endpoint_status, piiEnabled: delivery.pii_enabled }, key, delivery.event_type, now);
    if (refusal !== null) {
      freeSlot('none', null);
      // As at the relay: the first event the key can no longer receive pauses its endpoint. Paused
      // before the delivery is recorded, so whoever sees the failed delivery sees the endpoint paused.
      if (refusal === 'api_key_inactive') {
        const reason = keyPauseReason(key, now);
        if (await this.store.pauseForKey(delivery.endpoint_id, reason)) {
          this.logger.warn({ endpoint_id: delivery.endpoint_id, reason }, 'endpoint paused: its API key can no longer receive events');
        }
      }
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

  /** The per-attempt metrics and log line: named fields only, no body, no header, no secret. */
  private observe(delivery: LeasedDelivery, attempt: number, record: AttemptRecord, outcome: Outcome): void {
    const label = attemptOutcomeLabel(record);
    this.metrics.attempts.inc({ outcome: label });
    this.metrics.attemptDuration.observe({ outcome: label }, record.durationMs / 1000);
    this.attemptLines.info(
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

  private async send(delivery: LeasedDelivery, now: Date): Promise<AttemptRecord> {
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
   * An approval is reused for at most a second, and a check under way is shared (VettedUrlCache).
   */
  private async vet(rawUrl: string): Promise<{ url: URL; ipv4: string } | { errorKind: 'ssrf' | 'dns' }> {
    try {
      const vetted = await this.vettedUrls.vet(rawUrl, Date.now(), () => this.urls.vet(rawUrl));
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
    const wait = retryDelayMs(
      attempt,
      this.config.WEBHOOK_RETRY_SCHEDULE_MS,
      Math.random,
      retryAfter === undefined ? undefined : { ms: retryAfter, longestHoldMs: this.config.WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS },
    );
    return wait === null ? { status: 'dead', errorClass: null, retryInMs: null } : { status: 'pending', errorClass: null, retryInMs: wait };
  }

  private async finish(delivery: LeasedDelivery, token: string, outcome: Outcome, record: (AttemptRecord & { attempt: number }) | null): Promise<void> {
    const recorded = await this.store.finish({ deliveryId: delivery.id, token, outcome, record });
    if (!recorded) this.logger.warn({ delivery_id: delivery.id }, 'attempt outcome not recorded: the lease had expired');
  }
}

/** What an attempt showed of the receiver, for its endpoint's circuit. */
function receiverVerdict(record: AttemptRecord): ReceiverVerdict {
  if ('responseStatus' in record) return record.responseStatus >= 500 ? 'down' : 'up';
  return record.errorKind === 'ssrf' ? 'none' : 'down';
}

function signingInput(delivery: LeasedDelivery) {
  return {
    secretCiphertext: delivery.secret_ciphertext,
    previousSecretCiphertext: delivery.previous_secret_ciphertext,
    previousSecretExpiresAt: delivery.previous_secret_expires_at,
  };
}
