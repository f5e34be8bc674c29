/**
 * One operationId convention for every operation, derived from its method and path so routes
 * added later follow it without declaring anything: `<resource>.<verb>`, nested resources
 * joined by dots, names in camelCase.
 *
 *   GET  /v1/invoices                         invoices.list
 *   POST /v1/invoices                         invoices.create
 *   GET  /v1/invoices/{id}                    invoices.retrieve
 *   PATCH /v1/invoices/{id}                   invoices.update
 *   DELETE /v1/webhook_endpoints/{id}         webhookEndpoints.delete
 *   POST /v1/invoices/{id}/void               invoices.void            (an action on one resource)
 *   GET  /v1/webhook_endpoints/{id}/deliveries webhookEndpoints.deliveries.list
 *   GET  /v1/openapi.json                     openapi.retrieve         (a document, not a collection)
 */
export function operationIdFor(method: string, path: string): string {
  const segments = path.split('/').filter((segment) => segment !== '' && segment !== 'v1');
  const isParam = (segment: string | undefined) => segment !== undefined && segment.startsWith('{');
  const names = segments.filter((segment) => !isParam(segment)).map(camel);
  const last = segments.at(-1);
  const verb = method.toLowerCase();
  if (isParam(last)) return [...names, ITEM_VERBS[verb] ?? verb].join('.');
  if (last?.includes('.')) return [...names, verb === 'get' ? 'retrieve' : verb].join('.');
  if (isParam(segments.at(-2)) && verb !== 'get') return names.join('.');
  return [...names, COLLECTION_VERBS[verb] ?? verb].join('.');
}

const ITEM_VERBS: Record<string, string> = { get: 'retrieve', put: 'replace', patch: 'update', delete: 'delete' };
const COLLECTION_VERBS: Record<string, string> = { get: 'list', post: 'create' };

function camel(segment: string): string {
  return segment
    .replace(/\.[a-z]+$/, '')
    .split(/[_-]/)
    .map((part, index) => (index === 0 ? part : part.charAt(0).toUpperCase() + part.slice(1)))
    .join('');
}
