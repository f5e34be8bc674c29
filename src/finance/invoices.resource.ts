import { Scope } from '../platform/catalog/scopes.js';
import { readResource } from '../platform/resources/read-resource.js';
import { InvoiceDto } from './dto/invoice.dto.js';
import { invoiceResources } from './finance.representation.js';
import { listInvoices, retrieveInvoice } from './invoice-rows.js';
import { Invoice } from './invoice.entity.js';

export const invoicesResource = readResource({
  name: 'invoices',
  area: 'finance',
  entity: Invoice,
  item: InvoiceDto,
  scope: Scope.FinInvoicesRead,
  tag: 'Invoices',
  singular: 'invoice',
  article: 'an',
  description:
    'An invoice to a customer: number (INV-…, null while draft), status (draft, issued, partial, overdue, paid, void), ' +
    'currency, amounts in minor units (total, paid, balance), issue and due dates, and its lines.',
  searchable: ['number', 'notes'],
  represent: (invoices: Invoice[], scope) => invoiceResources(scope, invoices),
  retrieve: retrieveInvoice,
  list: listInvoices,
});

declare module '../platform/catalog/event-types.js' {
  interface EventDataModels {
    InvoiceDto: InvoiceDto;
  }
}
