import type { Type } from '@nestjs/common';
import { WebhookDeliveryWorkerModule } from '../webhooks/delivery/webhook-delivery-worker.module.js';

/**
 * What the worker role loads besides the platform (whose IdempotencyModule holds the cleanup
 * job): only modules with `@OnJob` handlers or background loops, never the REST controllers'
 * modules. Apart from FEATURE_MODULES so that the other roles never load these modules' files
 * (the delivery attempt's HTTP client among them).
 */
export const WORKER_MODULES: Type[] = [WebhookDeliveryWorkerModule];
