import type { FeatureManifest } from '../platform/features/feature-manifest.js';
import { billsResource } from './bills.resource.js';
import { financeCommands } from './finance.commands.js';
import { FinanceDemoSeeder } from './finance-demo.seeder.js';
import { FinanceModule } from './finance.module.js';
import { invoicesResource } from './invoices.resource.js';
import { paymentsResource } from './payments.resource.js';
import { purchaseOrdersResource } from './purchase-orders.resource.js';

export const financeFeature: FeatureManifest = {
  name: 'finance',
  modules: [FinanceModule],
  resources: [invoicesResource, paymentsResource, billsResource, purchaseOrdersResource],
  summary: async () => (await import('./finance.summary.js')).financeSummary,
  seeder: { type: FinanceDemoSeeder },
  commands: financeCommands,
  tags: {
    Bills: 'Supplier bills (finance, read-only).',
    Invoices: 'Customer invoices: read, create and change drafts, void issued invoices.',
    Payments: 'Incoming and outgoing payments (finance, read-only).',
    'Purchase orders': 'Purchase orders to suppliers (finance, read-only).',
  },
};
