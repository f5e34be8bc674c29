import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Bill } from './bill.entity.js';
import { CreditNote } from './credit-note.entity.js';
import { Customer } from './customer.entity.js';
import { FinanceApplicationService } from './finance-application.service.js';
import { FinanceAuditEntry } from './finance-audit-entry.entity.js';
import { FinanceDemoSeeder } from './finance-demo.seeder.js';
import { InvoiceLine } from './invoice-line.entity.js';
import { Invoice } from './invoice.entity.js';
import { InvoiceWritesController } from './invoices.controller.js';
import { InvoicesService } from './invoices.service.js';
import { Payment } from './payment.entity.js';
import { Product } from './product.entity.js';
import { PurchaseOrder } from './purchase-order.entity.js';
import { ReferenceDataService } from './reference-data.service.js';
import { TaxRate } from './tax-rate.entity.js';

/**
 * Finance: invoices (read, create, change, void), payments, bills and purchase orders (read),
 * and the Finance application's operations and reference data for the admin CLI and seed:demo.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([Customer, Product, TaxRate, Invoice, InvoiceLine, CreditNote, FinanceAuditEntry, Payment, Bill, PurchaseOrder]),
  ],
  controllers: [InvoiceWritesController],
  providers: [InvoicesService, ReferenceDataService, FinanceApplicationService, FinanceDemoSeeder],
  exports: [ReferenceDataService, FinanceApplicationService, FinanceDemoSeeder],
})
export class FinanceModule {}
