import { Column, Entity } from 'typeorm';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';

export const WEBHOOK_ENDPOINT_STATUSES = ['active', 'paused', 'disabled'] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

/** Why an endpoint is paused or disabled (spec sections 2 and 3). */
export const WEBHOOK_DISABLED_REASONS = [
  'user_deleted',
  'api_key_revoked',
  'api_key_inactive',
  'auto_consecutive_failures',
  'auto_410_repeat',
  'auto_7_day_all_dead',
] as const;
export type WebhookDisabledReason = (typeof WEBHOOK_DISABLED_REASONS)[number];

/**
 * A registered receiver of events. It belongs to the API key that created it (spec 5.8). The
 * signing secret exists only encrypted (see WebhookSecretBox); the previous one is kept during
 * a rotation's grace period.
 */
@Entity('webhook_endpoints')
export class WebhookEndpoint extends TenantOwnedEntity {
  @Column({ type: 'uuid' })
  apiKeyId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  url: string;

  @Column({ type: 'text', array: true })
  eventTypes: string[];

  @Column({ type: 'text', nullable: true })
  pinnedVersion: string | null;

  @Column({ type: 'text' })
  status: WebhookEndpointStatus;

  @Column({ type: 'text', nullable: true })
  disabledReason: WebhookDisabledReason | null;

  @Column({ type: 'boolean' })
  piiEnabled: boolean;

  @Column({ type: 'bytea' })
  secretCiphertext: Buffer;

  @Column({ type: 'bytea', nullable: true })
  previousSecretCiphertext: Buffer | null;

  @Column({ type: 'timestamptz', nullable: true })
  previousSecretExpiresAt: Date | null;

  @Column({ type: 'timestamptz' })
  statusChangedAt: Date;
}

/** Deleted endpoints stay listed but can no longer be changed, paused, resumed or deleted. */
export function isDeleted(endpoint: Pick<WebhookEndpoint, 'disabledReason'>): boolean {
  return endpoint.disabledReason === 'user_deleted';
}
