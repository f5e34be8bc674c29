import type { Type } from '@nestjs/common';
import { DocumentsModule } from '../documents/documents.module.js';
import { FinanceModule } from '../finance/finance.module.js';
import { FleetModule } from '../fleet/fleet.module.js';
import { HrModule } from '../hr/hr.module.js';
import { SupportModule } from '../support/support.module.js';

/**
 * The feature modules of the REST API, registered here and nowhere else. Adding a read
 * resource: an entity, a response DTO, a module, its catalogue entries, and a line here.
 */
export const FEATURE_MODULES: Type[] = [FinanceModule, FleetModule, HrModule, SupportModule, DocumentsModule];
