import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EventCatalog, type EventType, isEventType } from '../../platform/catalog/event-types.js';
import type { EventEnvelope } from '../../platform/events/event-envelope.js';
import { EventDataCheck } from '../../platform/events/event-data-check.js';
import { envelopeAt } from '../../platform/events/event-publisher.service.js';
import { ALL_EVENTS, unknownEventTypes } from '../subscriptions.js';
import type { TestEventDto } from './dto/test-event.dto.js';
import { deliveryApiVersion } from './webhook-envelope.js';
import type { AuthContext } from '../../platform/auth/auth-context.js';
import { DomainException } from '../../platform/errors/domain.exception.js';
import type { Page, PageRequest } from '../../platform/pagination/page.js';
import { Paginator } from '../../platform/pagination/paginator.service.js';
import { TenantData, type TenantScope } from '../../platform/tenancy/tenant-data.js';
import { isDeleted, type WebhookEndpoint } from '../webhook-endpoint.entity.js';
import { WebhookEndpointsService } from '../webhook-endpoints.service.js';
import { toAttemptDto, toDeliveryDto, type WebhookDeliveryDetailDto, type WebhookDeliveryDto } from './dto/webhook-delivery.dto.js';
import { type DeliveryStatus, WebhookDelivery, WebhookDeliveryAttempt } from './webhook-delivery.entity.js';
import { sinceParam } from '../event-filters.js';
import { DeliveryGate } from './gate/delivery-gate.js';

const FOREIGN_KEY_VIOLATION = '23503';

export interface DeliveryFilters {
  status?: DeliveryStatus;
  eventType?: EventType;
  since?: string;
}

/** Most deliveries one replay_failed call queues (spec section 8). */
const REPLAY_FAILED_BATCH = 1000;
const DAY_MS = 24 * 3600 * 1000;

/** The deliveries API: reading an endpoint's deliveries, replaying and retrying them, and test events (spec section 4). */
@Injectable()
export class WebhookDeliveriesService {
  private readonly logger = new Logger(WebhookDeliveriesService.name);

  constructor(
    @Inject(TenantData) private readonly data: TenantData,
    @Inject(WebhookEndpointsService) private readonly endpoints: WebhookEndpointsService,
    @Inject(Paginator) private readonly paginator: Paginator,
    @Inject(DeliveryGate) private readonly gate: DeliveryGate,
    @Inject(EventDataCheck) private readonly eventData: EventDataCheck,
  ) {}

  async list(auth: AuthContext, endpointId: string, filters: DeliveryFilters, page: PageRequest): Promise<Page<WebhookDeliveryDto>> {
    const endpoint = await this.endpoints.findOwned(auth, endpointId);
    const query = this.data
      .forTenant(endpoint.tenantId)
      .repository(WebhookDelivery)
      .select('delivery')
      .andWhere('delivery.endpoint_id = :endpointId', { endpointId: endpoint.id });
    if (filters.status) query.andWhere('delivery.status = :status', { status: filters.status });
    if (filters.eventType) query.andWhere('delivery.event_type = :eventType', { eventType: filters.eventType });
    if (filters.since) query.andWhere('delivery.created_at >= CAST(:since AS timestamptz)', { since: filters.since });
    // The cursor is signed for the filters too, so one reused with others is refused.
    const filtered = filters.status || filters.eventType || filters.since ? `\n${filters.status ?? ''}\n${filters.eventType ?? ''}\n${filters.since ?? ''}` : '';
    const waits = await this.endpointWaitsUntil(endpoint);
    return this.paginator.paginate(query, page, {
      list: `webhook_deliveries:${endpoint.id}${filtered}`,
      invalidCursor: 'InvalidCursor',
      map: (delivery) => toDeliveryDto(delivery, waits),
    });
  }

  /**
   * Until when the gate holds the endpoint's deliveries back, whatever their own retry time: its
   * circuit's next probe while open, or a receiver's Retry-After. Null when nothing holds it, and
   * when Redis cannot be read (logged): the deliveries' own times are then shown.
   */
  private async endpointWaitsUntil(endpoint: WebhookEndpoint): Promise<Date | null> {
    const circuit = (await this.gate.circuitsShown([endpoint.id]))?.get(endpoint.id);
    const waits = [circuit?.heldUntil, circuit?.state === 'open' ? circuit.nextProbeAt : null].filter((at): at is Date => at instanceof Date);
    return waits.length === 0 ? null : new Date(Math.max(...waits.map((at) => at.getTime())));
  }

  async get(auth: AuthContext, endpointId: string, deliveryId: string): Promise<WebhookDeliveryDetailDto> {
    const endpoint = await this.endpoints.findOwned(auth, endpointId);
    const scope = this.data.forTenant(endpoint.tenantId);
    const delivery = await this.findDelivery(scope, endpoint, deliveryId);
    const attempts = await scope.repository(WebhookDeliveryAttempt).find({ where: { deliveryId: delivery.id }, order: { attempt: 'ASC' } });
    return { ...toDeliveryDto(delivery, await this.endpointWaitsUntil(endpoint)), attempts: attempts.map(toAttemptDto) };
  }

  /**
   * Replays one finished delivery: a new pending delivery of the same event (same envelope id
   * and body) to the endpoint's current URL, signed afresh with its current secrets.
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
    // The event may pass its retention meanwhile: its deliveries go with it (the row is gone, or
    // the new row's reference to the event fails). A transaction of its own, as every change an
    // idempotent request makes (TenantData.transaction).
    const [replay] = await this.data
      .transaction(endpoint.tenantId, (inserting) =>
        inserting.query<{ id: string }>(
          `INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, api_version, personal_data, replayed_from, next_attempt_at)
           SELECT tenant_id, endpoint_id, event_id, event_type, api_version, personal_data, coalesce(replayed_from, id), clock_timestamp()
             FROM webhook_deliveries WHERE tenant_id = $1 AND id = $2
           RETURNING id`,
          [original.id],
        ),
      )
      .catch((error: unknown) => {
        if ((error as { code?: string }).code === FOREIGN_KEY_VIOLATION) return [];
        throw error;
      });
    if (!replay) throw deliveryNotFound(deliveryId);
    await this.offer(endpoint, [replay]);
    return toDeliveryDto(await this.findDelivery(scope, endpoint, replay.id), await this.endpointWaitsUntil(endpoint));
  }

  /**
   * Makes the next attempt of a pending delivery now instead of at `next_attempt_at`. The attempt
   * is one of the eight and goes through the delivery gate like any other, so the endpoint's cap,
   * circuit and Retry-After still hold. A delivery whose attempt is in flight is left to it: the
   * lease keeps it from being sent twice, and the answer shows it as it stands.
   */
  async retry(auth: AuthContext, endpointId: string, deliveryId: string): Promise<WebhookDeliveryDto> {
    const endpoint = await this.endpoints.findOwned(auth, endpointId);
    const scope = this.data.forTenant(endpoint.tenantId);
    const delivery = await this.findDelivery(scope, endpoint, deliveryId);
    assertCanReceive(endpoint);
    if (delivery.status !== 'pending') throw notPending(delivery);
    // In a transaction, as every change of an idempotent request, so that the claim commits with it
    // (TenantData.transaction): on its own, a repeat could take the claim over and hurry it again.
    const hurried = await this.data.transaction(endpoint.tenantId, (hurrying) =>
      hurrying.query<{ id: string }>(
        `UPDATE webhook_deliveries SET next_attempt_at = clock_timestamp(), updated_at = clock_timestamp()
          WHERE tenant_id = $1 AND id = $2 AND status = 'pending' AND (leased_until IS NULL OR leased_until < clock_timestamp())
          RETURNING id`,
        [delivery.id],
      ),
    );
    if (hurried.length > 0) await this.offer(endpoint, hurried);
    const now = await this.findDelivery(scope, endpoint, deliveryId);
    // Finished between the read above and the update: there is nothing left to retry.
    if (hurried.length === 0 && now.status !== 'pending') throw notPending(now);
    return toDeliveryDto(now, await this.endpointWaitsUntil(endpoint));
  }

  /**
   * Sends the endpoint a test event: a new event of `event_type` (default: its first subscribed
   * type, `fin.invoice.created` for `["*"]`) whose data is the catalogue's example, marked
   * `test: true` in the envelope. It is recorded and delivered to this endpoint alone (never
   * fanned out, not in the events feed), signed and attempted like any other delivery.
   */
  async sendTestEvent(auth: AuthContext, endpointId: string, input: TestEventDto): Promise<WebhookDeliveryDto> {
    const endpoint = await this.endpoints.findOwned(auth, endpointId);
    const type = input.event_type ?? defaultTestType(endpoint.eventTypes);
    if (!isEventType(type)) throw unknownEventTypes([type], 'event_type');
    if (!endpoint.eventTypes.includes(ALL_EVENTS) && !endpoint.eventTypes.includes(type)) {
      throw new DomainException('WebhookEventTypeNotSubscribed', `The endpoint is not subscribed to ${type}; it receives ${endpoint.eventTypes.join(', ')}.`, {
        field: 'event_type',
      });
    }
    assertCanReceive(endpoint);
    const personal = EventCatalog[type].personalData;
    if (personal && !endpoint.piiEnabled) {
      throw new DomainException('WebhookPiiNotGranted', `${type} carries personal data and the endpoint is not enabled for it.`);
    }
    const envelope: EventEnvelope = { id: randomUUID(), type, created_at: '', data: await this.eventData.example(type), test: true };
    const delivery = await this.data.transaction(endpoint.tenantId, async (scope) => {
      // Its time is the database's, as every event's (docs/webhooks.md): the row's and the envelope's alike.
      await scope.query(
        `INSERT INTO events (tenant_id, id, type, envelope, created_at, dispatched_at, test)
         SELECT $1, $2, $3, ${envelopeAt('$4', 'now.at')}, now.at, now.at, true FROM (SELECT clock_timestamp() AS at) now`,
        [envelope.id, type, JSON.stringify(envelope)],
      );
      const [{ id }] = await scope.query<{ id: string }>(
        `INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, api_version, personal_data, next_attempt_at)
         VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp()) RETURNING id`,
        [endpoint.id, envelope.id, type, deliveryApiVersion(endpoint.pinnedVersion), personal],
      );
      return this.findDelivery(scope, endpoint, id);
    });
    await this.offer(endpoint, [delivery]);
    return toDeliveryDto(delivery, await this.endpointWaitsUntil(endpoint));
  }

  /**
   * Replays the endpoint's failed and dead original deliveries created since `since` (default:
   * the last 24 hours), oldest first, at most 1,000: not replays, not deliveries replayed
   * before, and personal-data deliveries only to a granted endpoint. Calls for one endpoint are
   * serialised by a transaction-scoped advisory lock, so two concurrent calls never replay a
   * delivery twice.
   */
  async replayFailed(auth: AuthContext, endpointId: string, since: unknown): Promise<{ enqueued: number }> {
    const from = sinceParam(since) ?? new Date(Date.now() - DAY_MS).toISOString();
    const endpoint = await this.endpoints.findOwned(auth, endpointId);
    assertCanReceive(endpoint);
    const created = await this.data.transaction(endpoint.tenantId, async (scope) => {
      await scope.query(`SELECT pg_advisory_xact_lock(hashtextextended('webhook_replay_failed:' || $1 || ':' || $2, 0))`, [endpoint.id]);
      return scope.query<{ id: string }>(
        `INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, api_version, personal_data, replayed_from, next_attempt_at)
         SELECT d.tenant_id, d.endpoint_id, d.event_id, d.event_type, d.api_version, d.personal_data, d.id, clock_timestamp()
           FROM webhook_deliveries d
          WHERE d.tenant_id = $1 AND d.endpoint_id = $2 AND d.status IN ('failed', 'dead') AND d.replayed_from IS NULL
            AND d.created_at >= $3::timestamptz AND ($4 OR NOT d.personal_data)
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
    if (!delivery) throw deliveryNotFound(deliveryId);
    return delivery;
  }
}

const deliveryNotFound = (deliveryId: string) => new DomainException('WebhookDeliveryNotFound', `No delivery ${deliveryId} of this endpoint.`, { field: 'delivery_id' });

const notPending = (delivery: WebhookDelivery) =>
  new DomainException('WebhookDeliveryNotPending', `The delivery is ${delivery.status}; replay it to send the event again.`, { delivery_status: delivery.status });

/** A test event's type when the body names none: the endpoint's first subscribed type. */
function defaultTestType(eventTypes: readonly string[]): string {
  return eventTypes[0] === ALL_EVENTS ? ('fin.invoice.created' satisfies EventType) : eventTypes[0];
}

/** Replays, retries and test events need an endpoint that receives events now: active (not paused, disabled or deleted). */
function assertCanReceive(endpoint: WebhookEndpoint): void {
  if (endpoint.status !== 'active') {
    const remedy = isDeleted(endpoint) ? 'it was deleted and cannot receive deliveries' : 'resume it first: only an active endpoint receives deliveries';
    throw new DomainException('WebhookEndpointNotActive', `The endpoint is ${endpoint.status}; ${remedy}.`, { endpoint_status: endpoint.status });
  }
}

