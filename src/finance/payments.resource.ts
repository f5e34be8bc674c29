import { Scope } from '../platform/catalog/scopes.js';
import { readResource } from '../platform/resources/read-resource.js';
import { PaymentDto } from './dto/payment.dto.js';
import { paymentResource } from './finance.representation.js';
import { Payment } from './payment.entity.js';

export const paymentsResource = readResource({
  name: 'payments',
  area: 'finance',
  entity: Payment,
  item: PaymentDto,
  scope: Scope.FinPaymentsRead,
  tag: 'Payments',
  singular: 'payment',
  article: 'a',
  description: 'A payment received from a customer against an invoice (direction in) or paid to a supplier against a bill (direction out): amount, currency, status and when.',
  searchable: ['invoice_id', 'bill_id', 'status', 'failure_reason'],
  toResource: paymentResource,
});
