import { Scope } from '../platform/catalog/scopes.js';
import { readResource } from '../platform/resources/read-resource.js';
import { BillDto } from './dto/bill.dto.js';
import { billResource } from './finance.representation.js';
import { Bill } from './bill.entity.js';

export const billsResource = readResource({
  name: 'bills',
  area: 'finance',
  entity: Bill,
  item: BillDto,
  scope: Scope.FinBillsRead,
  tag: 'Bills',
  singular: 'bill',
  article: 'a',
  description: "A supplier's bill to the company: the supplier's number, supplier name, status, amounts and balance, issue and due dates.",
  searchable: ['number', 'supplier_name'],
  toResource: billResource,
});
