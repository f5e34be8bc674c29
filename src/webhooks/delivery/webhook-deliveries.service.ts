import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AuthContext } from '../../platform/auth/auth-context.js';
import { DomainException } from '../../platform/errors/domain.exception.js';
import type { Page, PageRequest } from '../../platform/pagination/page.js';
import { Paginator } from '../../platform/pagination/paginator.service.js';
import { TenantData, type TenantScope } from '../../platform/tenancy/tenant-data.js';
import type { WebhookEndpoint } from '../webhook-endpoint.entity.js';
import { WebhookEndpointsService } from '../webhook-endpoints.service.js';
import { toAttemptDto, toDeliveryDto, type WebhookDeliveryDetailDto, type WebhookDeliveryDto } from './dto/webhook-delivery.dto.js';
import { WebhookDelivery, WebhookDeliveryAttempt } from './webhook-delivery.entity.js';
import { parseRfc3339DateTime } from '../../platform/validation/rfc3339.js';
import { DeliveryGate } from './gate/delivery-gate.js';

/** Most deliveries one replay_failed call queues (spec section 8). */
export const REPLAY_FAILED_BATCH = 1000;
const DAY_MS = 24 * 3600 * 1000;

/** The deliveries API: reading an endpoint's deliveries and replaying them (spec section 4). */
@Injectable()
export class WebhookDeliveriesService {
  private readonly logger = new Logger(WebhookDeliveriesService.name);

  constructor(
    @Inject(TenantData) private readonly data: TenantData,
    @Inject(WebhookEndpointsService) private readonly endpoints: WebhookEndpointsService,
    @Inject(Paginator) private readonly paginator: Paginator,
    @Inject(DeliveryGate) private readonly gate: DeliveryGate,
  ) {}

  async list(auth: AuthContext, endpointId: string, page: PageRequest): Promise<Page<WebhookDeliveryDto>> {
    const endpoint = await this.endpoints.findOwned(auth, endpointId);
    const query = this.data
      .forTenant(endpoint.tenantId)
      .repository(WebhookDelivery)
      .select('delivery')
      .andWhere('delivery.endpoint_id = :endpointId', { endpointId: endpoint.id });
    return this.paginator.paginate(query, page, { list: `webhook_deliveries:${endpoint.id}`, invalidCursor: 'InvalidCursor', map: toDeliveryDto });
  }

  async get(auth: AuthContext, endpointId: string, deliveryId: string): Promise<WebhookDeliveryDetailDto> {
    const endpoint = await this.endpoints.findOwned(auth, endpointId);
    const scope = this.data.forTenant(endpoint.tenantId);
    const delivery = await this.findDelivery(scope, endpoint, deliveryId);
    const attempts = await scope.repository(WebhookDeliveryAttempt).find({ where: { deliveryId: delivery.id }, order: { attempt: 'ASC' } });
    return { ...toDeliveryDto(delivery), attempts: attempts.map(toAttemptDto) };
  }

  /**
   * Replays one finished delivery: a new pending delivery of the same event (same envelope id
   * and body) to the endpoint's current URL, signed afresh with its current secret.
   * `replayed_from` names the original delivery, also when a replay is replayed.
   */
  async replay(auth: AuthContext, endpointId: string, deliveryId: string): Promise<WebhookDeliveryDto> {
    const endpoint = await this.endpoints.findOwned(auth, endpointId);
    const scope = this.data.forTenant(endpoint.tenantId);
    const original = await this.findDelivery(scope, endpoint, deliveryId);
    assertCanReceive(endpoint);
    if (original.personalData && !endpoint.piiEnabled) {
      throw new DomainException('WebhookPiiNotGranted', 'The delivery carries personal data and the endpoint is not enabled for it.');
    }
    if (original.status === 'pending') throw new DomainException('WebhookDeliveryPending', 'The delivery has not finished yet.');
    const [replay] = await scope.query<{ id: string }>(
      `INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, api_version, personal_data, replayed_from, next_attempt_at)
       SELECT tenant_id, endpoint_id, event_id, event_type, api_version, personal_data, coalesce(replayed_from, id), clock_timestamp()
         FROM webhook_deliveries WHERE tenant_id = $1 AND id = $2
       RETURNING id`,
      [original.id],
    );
    await this.offer(endpoint, [replay]);
    return toDeliveryDto(await this.findDelivery(scope, endpoint, replay.id));
  }

  /**
   * Replays the endpoint's failed and dead original deliveries created since `since` (default:
   * the last 24 hours), oldest first, at most 1,000: not replays, not deliveries replayed
   * before, and personal-data deliveries only to a granted endpoint. Calls for one endpoint are
   * serialised by a transaction-scoped advisory lock, so two concurrent calls never replay a
   * delivery twice.
   */
  async replayFailed(auth: AuthContext, endpointId: string, since: unknown): Promise<{ enqueued: number }> {
    const from = parseSince(since);
    const endpoint = await this.endpoints.findOwned(auth, endpointId);
    assertCanReceive(endpoint);
    const created = await this.data.transaction(endpoint.tenantId, async (scope) => {
      await scope.query(`SELECT pg_advisory_xact_lock(hashtextextended('webhook_replay_failed:' || $1 || ':' || $2, 0))`, [endpoint.id]);
      return scope.query<{ id: string }>(
        `INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, api_version, personal_data, replayed_from, next_attempt_at)
         SELECT d.tenant_id, d.endpoint_id, d.event_id, d.event_type, d.api_version, d.personal_data, d.id, clock_timestamp()
           FROM webhook_deliveries d
          WHERE d.tenant_id = $1 AND d.endpoint_id = $2 AND d.status IN ('failed', 'dead') AND d.replayed_from IS NULL
            AND d.created_at >= $3 AND ($4 OR NOT d.personal_data)
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries r WHERE r.replayed_from = d.id)
          ORDER BY d.created_at, d.id
          LIMIT ${REPLAY_FAILED_BATCH}
         RETURNING id`,
        [endpoint.id, from, endpoint.piiEnabled],
      );
    });
    await this.offer(endpoint, created);
    return { enqueued: created.length };
  }

  /**
   * New pending deliveries go to the delivery gate. They are committed already, so a gate that
   * cannot be reached (Redis down) does not fail the request: the workers' sweep offers them.
   */
  private async offer(endpoint: WebhookEndpoint, deliveries: readonly { id: string }[]): Promise<void> {
    await this.gate.enqueue(deliveries.map(({ id }) => ({ endpointId: endpoint.id, deliveryId: id }))).catch((error: unknown) => {
      this.logger.warn({ err: error, endpoint_id: endpoint.id, count: deliveries.length }, 'replayed deliveries not offered to the delivery gate; the sweep offers them');
    });
  }

  private async findDelivery(scope: TenantScope, endpoint: WebhookEndpoint, deliveryId: string): Promise<WebhookDelivery> {
    const delivery = await scope.repository(WebhookDelivery).findOne({ endpointId: endpoint.id, id: deliveryId });
    if (!delivery) throw new DomainException('WebhookDeliveryNotFound', `No delivery ${deliveryId} of this endpoint.`, { field: 'delivery_id' });
    return delivery;
  }
}

/** Replays need an endpoint that receives events now: active (not paused, disabled or deleted). */
function assertCanReceive(endpoint: WebhookEndpoint): void {
  if (endpoint.status !== 'active') {
    throw new DomainException('WebhookEndpointNotActive', `The endpoint is ${endpoint.status}; resume it before replaying.`, { endpoint_status: endpoint.status });
  }
}

/** `since`: an RFC 3339 date-time with a time zone; absent means 24 hours ago. */
export function parseSince(since: unknown, now = new Date()): Date {
  if (since === undefined) return new Date(now.getTime() - DAY_MS);
  const parsed = parseRfc3339DateTime(since);
  if (!parsed) {
    throw new DomainException('WebhookInvalidSince', 'since must be an RFC 3339 date-time such as 2026-05-16T08:00:00Z.', { field: 'since' });
  }
  return parsed;
}
