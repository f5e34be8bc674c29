import type { Type } from '@nestjs/common';
import { FinanceModule } from '../finance/finance.module.js';

/**
 * The feature modules of the REST API, registered here and nowhere else. Adding a read
 * resource: an entity, a response DTO, a module, its catalogue entries, and a line here.
 */
export const FEATURE_MODULES: Type[] = [FinanceModule];
