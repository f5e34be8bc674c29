import { operationIdFor } from './openapi-operation-ids.js';

describe('operationIdFor', () => {
  it.each([
    ['get', '/v1/invoices', 'invoices.list'],
    ['post', '/v1/invoices', 'invoices.create'],
    ['get', '/v1/invoices/{id}', 'invoices.retrieve'],
    ['patch', '/v1/invoices/{id}', 'invoices.update'],
    ['put', '/v1/invoices/{id}', 'invoices.replace'],
    ['delete', '/v1/webhook_endpoints/{id}', 'webhookEndpoints.delete'],
    ['post', '/v1/invoices/{id}/void', 'invoices.void'],
    ['post', '/v1/webhook_endpoints/{id}/rotate_secret', 'webhookEndpoints.rotateSecret'],
    ['get', '/v1/webhook_endpoints/{id}/deliveries', 'webhookEndpoints.deliveries.list'],
    ['get', '/v1/webhook_endpoints/{id}/deliveries/{delivery_id}', 'webhookEndpoints.deliveries.retrieve'],
    ['post', '/v1/webhook_endpoints/{id}/deliveries/{delivery_id}/replay', 'webhookEndpoints.deliveries.replay'],
    ['get', '/v1/purchase_orders', 'purchaseOrders.list'],
    ['get', '/v1/openapi.json', 'openapi.retrieve'],
  ])('%s %s → %s', (method, path, expected) => expect(operationIdFor(method, path)).toBe(expected));
});
