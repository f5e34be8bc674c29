import { ApiProperty } from '@nestjs/swagger';
import { ATTEMPT_ERROR_KINDS, DELIVERY_ERROR_CLASSES, DELIVERY_STATUSES, type WebhookDelivery, type WebhookDeliveryAttempt } from '../webhook-delivery.entity.js';

/** A delivery as the API shows it (spec section 2, plus the members an integrator needs to see why it failed). */
export class WebhookDeliveryDto {
  @ApiProperty({ format: 'uuid', example: '0b0f4a8e-2f5c-4a57-9d0c-3c8f0e4c1a11' })
  id: string;

  @ApiProperty({ format: 'uuid', description: 'The webhook endpoint.' })
  endpoint_id: string;

  @ApiProperty({ format: 'uuid', description: 'The event: the envelope `id`, `webhook-id` and `Idempotency-Key` of every request.' })
  event_id: string;

  @ApiProperty({ example: 'fin.invoice.created' })
  event_type: string;

  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'pending' })
  status: string;

  @ApiProperty({ type: 'integer', description: 'Attempts made so far (0-8).', example: 1 })
  attempt: number;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      "When the next attempt is due; set only while pending. Its retry time, or later while the endpoint waits: its circuit's next probe while open, the end of a receiver's Retry-After while it holds the endpoint back. (A delivery may still wait for one of the endpoint's WEBHOOK_ENDPOINT_CONCURRENCY slots.)",
  })
  next_attempt_at: string | null;

  @ApiProperty({ enum: DELIVERY_ERROR_CLASSES, nullable: true, type: String, description: 'Why the delivery failed; set only when status is failed.' })
  error_class: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'On a replay: the original delivery.' })
  replayed_from: string | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'HTTP status of the last attempt; null when it got no answer or none was made.', example: 500 })
  last_response_status: number | null;

  @ApiProperty({ description: 'The envelope version of the body.', example: '2026-05-16' })
  api_version: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

export class WebhookDeliveryAttemptDto {
  @ApiProperty({ type: 'integer', example: 1 })
  attempt: number;

  @ApiProperty({ format: 'date-time' })
  started_at: string;

  @ApiProperty({ type: 'integer', example: 42 })
  duration_ms: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The receiver\'s HTTP status; null when the request got no answer.', example: 503 })
  response_status: number | null;

  @ApiProperty({ enum: ATTEMPT_ERROR_KINDS, type: String, nullable: true, description: 'Why the request got no answer.' })
  error_kind: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The first 20 kB of the answer body, as UTF-8 text: bytes that are not UTF-8, and NUL, appear as U+FFFD.' })
  response_body: string | null;
}

export class WebhookDeliveryDetailDto extends WebhookDeliveryDto {
  @ApiProperty({ type: [WebhookDeliveryAttemptDto], description: 'Every attempt, oldest first.' })
  attempts: WebhookDeliveryAttemptDto[];
}

export class ReplayFailedResultDto {
  @ApiProperty({ type: 'integer', description: 'New pending deliveries queued (at most 1,000 per call).', example: 12 })
  enqueued: number;
}

/** `endpointWaitsUntil`: when the endpoint's circuit or a receiver's Retry-After lets the next attempt through, if later than now. */
export function toDeliveryDto(delivery: WebhookDelivery, endpointWaitsUntil: Date | null = null): WebhookDeliveryDto {
  const due = delivery.nextAttemptAt && endpointWaitsUntil && endpointWaitsUntil > delivery.nextAttemptAt ? endpointWaitsUntil : delivery.nextAttemptAt;
  return {
    id: delivery.id,
    endpoint_id: delivery.endpointId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status,
    attempt: delivery.attempt,
    next_attempt_at: due?.toISOString() ?? null,
    error_class: delivery.errorClass,
    replayed_from: delivery.replayedFrom,
    last_response_status: delivery.lastResponseStatus,
    api_version: delivery.apiVersion,
    created_at: delivery.createdAt.toISOString(),
    updated_at: delivery.updatedAt.toISOString(),
  };
}

export function toAttemptDto(attempt: WebhookDeliveryAttempt): WebhookDeliveryAttemptDto {
  return {
    attempt: attempt.attempt,
    started_at: attempt.startedAt.toISOString(),
    duration_ms: attempt.durationMs,
    response_status: attempt.responseStatus,
    error_kind: attempt.errorKind,
    response_body: attempt.responseBody,
  };
}
