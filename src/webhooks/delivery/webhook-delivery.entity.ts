import { Column, Entity } from 'typeorm';
import { TenantOwnedEntity } from '../../platform/resources/tenant-owned.entity.js';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DELIVERY_ERROR_CLASSES = ['gone', 'endpoint_disabled', 'ssrf_rejected', 'api_key_inactive', 'api_key_scope_insufficient', 'pii_capability_blocked'] as const;
export type DeliveryErrorClass = (typeof DELIVERY_ERROR_CLASSES)[number];

/** One event sent (or to be sent) to one endpoint; a replay is a delivery of its own. */
@Entity('webhook_deliveries')
export class WebhookDelivery extends TenantOwnedEntity {
  @Column({ type: 'uuid' })
  endpointId: string;

  @Column({ type: 'uuid' })
  eventId: string;

  @Column({ type: 'text' })
  eventType: string;

  @Column({ type: 'text' })
  apiVersion: string;

  @Column({ type: 'boolean' })
  personalData: boolean;

  @Column({ type: 'uuid', nullable: true })
  replayedFrom: string | null;

  @Column({ type: 'text' })
  status: DeliveryStatus;

  @Column({ type: 'integer' })
  attempt: number;

  @Column({ type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null;

  @Column({ type: 'text', nullable: true })
  errorClass: DeliveryErrorClass | null;

  @Column({ type: 'integer', nullable: true })
  lastResponseStatus: number | null;
}

export const ATTEMPT_ERROR_KINDS = ['timeout', 'dns', 'connect', 'tls', 'ssrf', 'protocol'] as const;

/** One HTTP attempt of a delivery, as it happened. */
@Entity('webhook_delivery_attempts')
export class WebhookDeliveryAttempt {
  @Column({ type: 'uuid', primary: true })
  id: string;

  @Column({ type: 'uuid' })
  tenantId: string;

  @Column({ type: 'uuid' })
  deliveryId: string;

  @Column({ type: 'uuid' })
  endpointId: string;

  @Column({ type: 'integer' })
  attempt: number;

  @Column({ type: 'timestamptz' })
  startedAt: Date;

  @Column({ type: 'integer' })
  durationMs: number;

  @Column({ type: 'integer', nullable: true })
  responseStatus: number | null;

  @Column({ type: 'text', nullable: true })
  errorKind: (typeof ATTEMPT_ERROR_KINDS)[number] | null;

  @Column({ type: 'text', nullable: true })
  responseBody: string | null;
}
