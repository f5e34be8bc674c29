import type { Type } from '@nestjs/common';
import { DocumentsModule } from '../documents/documents.module.js';
import { FinanceModule } from '../finance/finance.module.js';
import { FleetModule } from '../fleet/fleet.module.js';
import { HrModule } from '../hr/hr.module.js';
import { SupportModule } from '../support/support.module.js';
import { WebhookDeliveryModule } from '../webhooks/delivery/webhook-delivery.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';

/**
 * The feature modules (entities, writes, seeders, jobs), registered here and nowhere else. Their
 * readable resources are declared in `read-resources.ts`.
 */
export const FEATURE_MODULES: Type[] = [FinanceModule, FleetModule, HrModule, SupportModule, DocumentsModule, WebhooksModule, WebhookDeliveryModule];
