import type { EventType } from '../catalog/event-types.js';

/** What a webhook receiver gets: `id` equals the delivery's Idempotency-Key header. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  created_at: string;
  data: unknown;
  /** Only on a test event (POST /v1/webhook_endpoints/{id}/test_events): its data is the catalogue's example. */
  test?: true;
}
