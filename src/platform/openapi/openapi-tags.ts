/**
 * Every tag the document uses, with its description. A tag used by a controller but missing
 * here is declared without one, and the OpenAPI e2e test fails until it is added.
 */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Bills: 'Supplier bills (finance, read-only).',
  Documents: 'Document metadata: file name, type, size, checksum and owner (read-only).',
  Fleet: 'Vehicles, work orders and fuel logs (read-only).',
  HR: 'Employees, leave requests and timesheets (read-only).',
  Invoices: 'Customer invoices: read, create and change drafts, void issued invoices.',
  Payments: 'Incoming and outgoing payments (finance, read-only).',
  'Purchase orders': 'Purchase orders to suppliers (finance, read-only).',
  Specification: 'This OpenAPI document.',
  Support: 'Support tickets (read-only).',
  'Webhook deliveries': 'The delivery history of a webhook endpoint, and replays of failed deliveries.',
  'Webhook endpoints': 'Endpoints that receive signed event deliveries, and the catalogue of event types they can subscribe to.',
  'Webhook events': 'The calls this API makes to a webhook endpoint: one per event type, with the envelope and the data schema.',
};

/**
 * Declares every tag the document uses, in paths and in the top-level `webhooks` map, with its
 * description. Run last, after anything that adds operations.
 */
export function declareTags<T extends { paths?: object; webhooks?: object; tags?: { name: string; description?: string }[] }>(document: T): T {
  const used = new Set<string>();
  for (const item of [...Object.values(document.paths ?? {}), ...Object.values(document.webhooks ?? {})] as Record<string, { tags?: string[] }>[]) {
    for (const operation of Object.values(item)) for (const tag of operation?.tags ?? []) used.add(tag);
  }
  document.tags = [...used].sort().map((name) => (TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name }));
  return document;
}
