import type { FeatureManifest } from '../platform/features/feature-manifest.js';
import { WebhookDeliveryModule } from './delivery/webhook-delivery.module.js';
import { EventTypesModule } from './event-types/event-types.module.js';
import { EventsFeedModule } from './events-feed/events-feed.module.js';
import { webhookCommands } from './webhooks.commands.js';
import { WebhooksModule } from './webhooks.module.js';

export const webhooksFeature: FeatureManifest = {
  name: 'webhooks',
  modules: [WebhooksModule, WebhookDeliveryModule, EventTypesModule, EventsFeedModule],
  // The delivery attempt's HTTP client and the gate's loop stay out of the other roles.
  worker: async () => (await import('./delivery/webhook-delivery-worker.module.js')).WebhookDeliveryWorkerModule,
  commands: webhookCommands,
  tags: {
    Events: 'What happened in the company, as webhooks deliver it: the events feed, for reconciling a receiver and for polling.',
    'Webhook deliveries': 'The delivery history of a webhook endpoint, and replays of failed deliveries.',
    'Webhook endpoints': 'Endpoints that receive signed event deliveries, and the catalogue of event types they can subscribe to.',
    'Webhook events': 'The calls this API makes to a webhook endpoint: one per event type, with the envelope and the data schema.',
  },
};
