import type { OpenAPIObject } from '@nestjs/swagger';
import { EVENT_DATA_SCHEMAS, type JsonSchema } from '../catalog/event-data-schemas.js';
import { EVENT_TYPES, EventCatalog } from '../catalog/event-types.js';
import { Scope } from '../catalog/scopes.js';
import type { AppConfig } from '../config/app-config.js';

const EVENT_ENVELOPE_SCHEMA = 'WebhookEvent';

const ENVELOPE: JsonSchema = {
  type: 'object',
  description: 'What every delivery POSTs as its JSON body. `id` identifies the event and equals the delivery’s `Idempotency-Key` header: deduplicate on it, since a delivery can arrive more than once.',
  required: ['id', 'type', 'created_at', 'api_version', 'data'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'The event id.' },
    type: { type: 'string', description: 'An event type of the catalogue (`GET /v1/event_types`).', examples: ['fin.invoice.created'] },
    created_at: { type: 'string', format: 'date-time', description: 'When the change happened.' },
    api_version: {
      type: 'string',
      format: 'date',
      description: 'The API version that shapes this body: the endpoint’s `pinned_version`, else the version current when the event was fanned out. A replay keeps it.',
      examples: ['2026-05-16'],
    },
    test: {
      type: 'boolean',
      const: true,
      description: 'Present (and true) only on a test event sent with `POST /v1/webhook_endpoints/{id}/test_events`, whose `data` is the catalogue’s example.',
    },
    // Open to any member, so that a generated type of the envelope (an index signature) narrows to each type's data rather than contradicting it.
    data: { type: 'object', additionalProperties: true, description: 'The resource the event is about; its schema depends on `type`.' },
  },
};

/** The receiver's time to answer, as configured: `15 seconds`. */
export function deliveryTimeout(config: AppConfig): string {
  const seconds = config.WEBHOOK_TIMEOUT_MS / 1000;
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** Attempts per delivery: the first, then one after each wait of the configured retry schedule. */
export function deliveryAttempts(config: AppConfig): number {
  return config.WEBHOOK_RETRY_SCHEDULE_MS.length + 1;
}

/** A CamelCase name for the operationId of an event type: `fin.invoice.created` → `finInvoiceCreated`. */
function operationId(type: string): string {
  return type
    .split(/[._]/)
    .map((part, index) => (index === 0 ? part : part[0].toUpperCase() + part.slice(1)))
    .join('');
}

/**
 * Publishes the event catalogue in the document: the envelope and the `data` schemas as
 * components, and one entry per event type in OpenAPI 3.1's top-level `webhooks` map, so
 * receivers can generate their types.
 */
export function addEventWebhooks(document: OpenAPIObject, config: AppConfig): OpenAPIObject {
  document.components ??= {};
  document.components.schemas = { ...document.components.schemas, ...EVENT_DATA_SCHEMAS, [EVENT_ENVELOPE_SCHEMA]: ENVELOPE } as unknown as typeof document.components.schemas;
  const webhooks: Record<string, unknown> = {};
  for (const type of EVENT_TYPES) {
    const definition = EventCatalog[type];
    const scope = definition.scope === Scope.All ? '`int:*` (no read endpoint)' : `\`${definition.scope}\``;
    webhooks[type] = {
      post: {
        operationId: operationId(type),
        summary: type,
        description:
          `${definition.description}\n\nSubscribing needs ${scope}. ` +
          (definition.personalData ? 'Carries personal data: delivered only to endpoints that support enabled for personal data.' : 'Carries no personal data.'),
        tags: ['Webhook events'],
        // The receiver authenticates the call by its X-OH-Signature, not by a credential scheme.
        security: [],
        'x-required-scopes': [definition.scope],
        'x-personal-data': definition.personalData,
        parameters: [
          { name: 'Idempotency-Key', in: 'header', required: true, description: 'Equal to the envelope `id`.', schema: { type: 'string', format: 'uuid' } },
          {
            name: 'X-OH-Signature',
            in: 'header',
            required: true,
            description:
              '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed with the base64-decoded part of the `whsec_` secret; during a rotation’s 24-hour grace a second `v1=` signed with the previous secret follows.',
            schema: { type: 'string' },
          },
          { name: 'webhook-id', in: 'header', required: true, description: 'Standard Webhooks: the envelope `id`.', schema: { type: 'string', format: 'uuid' } },
          { name: 'webhook-timestamp', in: 'header', required: true, description: 'Standard Webhooks: Unix seconds when this attempt was signed.', schema: { type: 'string' } },
          {
            name: 'webhook-signature',
            in: 'header',
            required: true,
            description: 'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">`, space-separated per signing secret; stock verifiers accept it.',
            schema: { type: 'string' },
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                allOf: [
                  { $ref: `#/components/schemas/${EVENT_ENVELOPE_SCHEMA}` },
                  // Required again beside the members narrowed here, so that generated types keep them required.
                  { type: 'object', required: ENVELOPE.required, properties: { type: { const: type }, data: definition.dataSchema } },
                ],
              },
            },
          },
        },
        responses: {
          '200': { description: `Received. Any 2xx within ${deliveryTimeout(config)} counts as delivered.` },
          '410': { description: 'Gone: the delivery stops retrying (delivery `failed`, error_class `gone`).' },
        },
      },
    };
  }
  return { ...document, webhooks } as OpenAPIObject;
}
