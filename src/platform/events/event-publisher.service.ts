import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EventType } from '../catalog/event-types.js';
import type { TenantScope } from '../tenancy/tenant-data.js';
import type { EventEnvelope } from './event-envelope.js';
import { OutboxEvent } from './event.entity.js';

/**
 * Publishes events through the transactional outbox: callers pass the tenant scope of the
 * transaction that makes the change, so the event exists exactly when the change does.
 */
@Injectable()
export class EventPublisher {
  async publish(scope: TenantScope, type: EventType, data: unknown): Promise<EventEnvelope> {
    const envelope: EventEnvelope = { id: randomUUID(), type, created_at: new Date().toISOString(), data };
    await scope.repository(OutboxEvent).insert({ id: envelope.id, type, envelope: envelope as never });
    return envelope;
  }
}
