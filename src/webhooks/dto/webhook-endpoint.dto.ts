import { ApiProperty } from '@nestjs/swagger';
import { SUPPORTED_API_VERSIONS } from '../../platform/versioning/api-version.js';
import { CIRCUIT_STATES, type Circuit, type CircuitState } from '../delivery/gate/delivery-gate.js';
import {
  WEBHOOK_DISABLED_REASONS,
  WEBHOOK_ENDPOINT_STATUSES,
  type WebhookDisabledReason,
  type WebhookEndpoint,
  type WebhookEndpointStatus,
} from '../webhook-endpoint.entity.js';

/** The endpoint's circuit breaker (not in the spec; see docs/webhooks.md, "Delivery isolation"). */
export class WebhookCircuitDto {
  @ApiProperty({
    enum: CIRCUIT_STATES,
    example: 'closed',
    description:
      '`closed`: deliveries flow. `open`: the receiver failed (5xx, timeout, no connection) several times in a row; deliveries wait, ' +
      'spending no attempts, until `next_probe_at`. `half_open`: the cool-down is over; the next attempt is the one probe (one at a time), ' +
      'whose success closes the circuit and whose failure opens it again with twice the cool-down.',
  })
  state: CircuitState;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'When the circuit opened (the start of the outage); null while closed.' })
  opened_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'When the next probe may be sent; null while closed.' })
  next_probe_at: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description:
      'Until when the receiver asked for no more requests (`Retry-After` on a 429 or 503, at most WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS, 10 minutes by default): the endpoint\'s ' +
      'deliveries wait, spending no attempts, until then. null when no such request is in force.',
  })
  held_until: string | null;
}

/** A webhook endpoint as the API shows it (spec section 2). The signing secret is never part of it. */
export class WebhookEndpointDto {
  @ApiProperty({ format: 'uuid', example: '0f8c2a51-7d3e-4b8a-9c61-2f4e5d6a7b80' })
  id: string;

  @ApiProperty({ example: 'ERP invoice sync' })
  name: string;

  @ApiProperty({ example: 'https://erp.example.com/hooks/integrations', description: 'As stored: a WHATWG URL, which may hold characters an RFC 3986 URI would percent-encode.' })
  url: string;

  @ApiProperty({ type: String, isArray: true, example: ['fin.invoice.created', 'fin.invoice.paid'], description: 'Exact catalogue types, or `["*"]`.' })
  event_types: string[];

  @ApiProperty({ type: String, nullable: true, example: SUPPORTED_API_VERSIONS[0], description: 'null: not pinned.' })
  pinned_version: string | null;

  @ApiProperty({ enum: WEBHOOK_ENDPOINT_STATUSES, example: 'active' })
  status: WebhookEndpointStatus;

  @ApiProperty({
    enum: WEBHOOK_DISABLED_REASONS,
    nullable: true,
    example: null,
    description:
      'Why the endpoint is disabled or was paused by the service (`api_key_revoked`, `api_key_inactive`); null while active and ' +
      'after a pause through the API. `user_deleted`: deleted; it stays listed but cannot be changed or revived.',
  })
  disabled_reason: WebhookDisabledReason | null;

  @ApiProperty({ example: false, description: 'Enabled by support for personal-data events; changing `url` or `event_types` withdraws it.' })
  pii_enabled: boolean;

  @ApiProperty({ format: 'uuid', description: 'The API key that created and owns the endpoint.' })
  api_key_id: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'After `rotate_secret`: until then deliveries are signed with the previous secret too.',
  })
  previous_secret_expires_at: string | null;

  @ApiProperty({ format: 'date-time', description: 'Last change of `status`.' })
  status_changed_at: string;

  @ApiProperty({
    type: WebhookCircuitDto,
    nullable: true,
    description: 'The delivery circuit breaker of the endpoint; null only when the delivery state (kept in Redis) cannot be read right now.',
  })
  circuit: WebhookCircuitDto | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

/** The answer to create and rotate_secret: the only two places the signing secret is shown. */
export class WebhookEndpointWithSecretDto extends WebhookEndpointDto {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw5Mv6dS0xFbQ=',
    description: 'Signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks format). Shown only in this answer; store it now.',
  })
  secret: string;
}

export class WebhookEndpointListDto {
  @ApiProperty({ type: [WebhookEndpointDto], description: 'Every endpoint of the calling key (of the company for an `int:*` key), deleted ones included, newest first.' })
  data: WebhookEndpointDto[];
}

export function toWebhookEndpointDto(endpoint: WebhookEndpoint, circuit: Circuit | null): WebhookEndpointDto {
  return {
    id: endpoint.id,
    name: endpoint.name,
    url: endpoint.url,
    event_types: endpoint.eventTypes,
    pinned_version: endpoint.pinnedVersion,
    status: endpoint.status,
    disabled_reason: endpoint.disabledReason,
    pii_enabled: endpoint.piiEnabled,
    api_key_id: endpoint.apiKeyId,
    previous_secret_expires_at: endpoint.previousSecretExpiresAt?.toISOString() ?? null,
    status_changed_at: endpoint.statusChangedAt.toISOString(),
    circuit: circuit && {
      state: circuit.state,
      opened_at: circuit.openedAt?.toISOString() ?? null,
      next_probe_at: circuit.nextProbeAt?.toISOString() ?? null,
      held_until: circuit.heldUntil?.toISOString() ?? null,
    },
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
  };
}
