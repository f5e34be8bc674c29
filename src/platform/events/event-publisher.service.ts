import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EventData, EventType } from '../catalog/event-types.js';
import type { TenantScope } from '../tenancy/tenant-data.js';
import { EventDataCheck } from './event-data-check.js';
import type { EventEnvelope } from './event-envelope.js';
import { OutboxEvent } from './event.entity.js';

/** Data that breaks its event type's schema: a programming error, never the caller's input. */
export class EventDataMismatch extends Error {
  constructor(type: EventType, fault: string) {
    super(`event data does not match the schema of ${type}: ${fault}`);
    this.name = 'EventDataMismatch';
  }
}

/**
 * Publishes events through the transactional outbox: callers pass the tenant scope of the
 * transaction that makes the change, so the event exists exactly when the change does. The data
 * is typed by the catalogue and checked against the type's schema before it is written, so no
 * receiver ever gets an event its published schema does not describe.
 */
@Injectable()
export class EventPublisher {
  constructor(@Inject(EventDataCheck) private readonly check: EventDataCheck) {}

  async publish<T extends EventType>(scope: TenantScope, type: T, data: EventData<T>): Promise<EventEnvelope> {
    const fault = await this.check.fault(type, data);
    if (fault !== null) throw new EventDataMismatch(type, fault);
    const envelope: EventEnvelope = { id: randomUUID(), type, created_at: new Date().toISOString(), data };
    await scope.repository(OutboxEvent).insert({ id: envelope.id, type, envelope: envelope as never });
    return envelope;
  }
}
