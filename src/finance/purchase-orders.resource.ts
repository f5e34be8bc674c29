import { Scope } from '../platform/catalog/scopes.js';
import { readResource } from '../platform/resources/read-resource.js';
import { PurchaseOrderDto } from './dto/purchase-order.dto.js';
import { purchaseOrderResource } from './finance.representation.js';
import { PurchaseOrder } from './purchase-order.entity.js';

export const purchaseOrdersResource = readResource({
  name: 'purchase_orders',
  area: 'finance',
  entity: PurchaseOrder,
  item: PurchaseOrderDto,
  scope: Scope.FinPurchaseOrdersRead,
  tag: 'Purchase orders',
  singular: 'purchase order',
  article: 'a',
  description: 'An order the company placed with a supplier: number (PO-…), supplier name, status, amounts, order and expected dates.',
  searchable: ['number', 'supplier_name'],
  toResource: purchaseOrderResource,
});
