import { Controller, Inject, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiProblem, detailKey } from '../../platform/api-docs/api-problem-responses.decorator.js';
import { type AuthContext, CurrentAuth } from '../../platform/auth/auth-context.js';
import { Errors } from '../../platform/catalog/errors.js';
import { Scope } from '../../platform/catalog/scopes.js';
import { RequireScopes } from '../../platform/route-access/require-scopes.decorator.js';
import { UuidPipe } from '../../platform/validation/uuid.pipe.js';
import { ValidBody } from '../../platform/validation/validated-body.js';
import { DeliveryAction } from './delivery-action.decorator.js';
import { TestEventDto } from './dto/test-event.dto.js';
import { WebhookDeliveryDto } from './dto/webhook-delivery.dto.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';

@ApiTags('Webhook deliveries')
@Controller('v1/webhook_endpoints/:id/test_events')
@RequireScopes(Scope.WebhooksManage)
export class WebhookTestEventsController {
  constructor(@Inject(WebhookDeliveriesService) private readonly deliveries: WebhookDeliveriesService) {}

  @Post()
  @DeliveryAction()
  @ApiParam({ name: 'id', description: 'The webhook endpoint.', schema: { type: 'string', format: 'uuid' } })
  @ApiOperation({
    summary: 'Send a test event to a webhook endpoint',
    description:
      'Queues a delivery of a new event of `event_type` (default: the endpoint\'s first subscribed type, `fin.invoice.created` for ' +
      '`["*"]`) whose `data` is the catalogue\'s example for the type, in the state the type names (a `fin.invoice.paid` test event carries a paid invoice). The envelope carries `"test": true` (before `data`), so a ' +
      'receiver can tell it from a real event. The delivery is signed, attempted, retried and listed like any other; it goes to this ' +
      'endpoint alone and the event is not in the events feed. Shares the replay limit (60 per minute per key).',
  })
  @ApiBody({ type: TestEventDto, required: false, examples: { default: { value: {} }, chosen: { value: { event_type: 'fin.invoice.paid' } } } })
  @ApiAcceptedResponse({ type: WebhookDeliveryDto, description: 'The new pending delivery of the test event.' })
  @ApiProblem(404, `${detailKey('WebhookEndpointNotFound')}: no such endpoint for this key.`)
  @ApiProblem(403, `${detailKey('WebhookPiiNotGranted')}: the type carries personal data and support has not enabled the endpoint for it; or ${detailKey('MissingScope')}.`)
  @ApiProblem(409, `${detailKey('WebhookEndpointNotActive')}: the endpoint is paused, disabled or deleted; or an idempotency conflict.`)
  @ApiProblem(
    422,
    `${detailKey('WebhookUnknownField')} (a body member other than \`event_type\`), ${detailKey('WebhookValidationFailed')} (\`event_type\` not a string), ` +
      `${detailKey('WebhookUnknownEventType')} (not in the catalogue, \`unknown_event_types\`), ${detailKey('WebhookEventTypeNotSubscribed')} ` +
      `(code \`event_type_not_subscribed\`: the endpoint does not receive that type), ${detailKey('InvalidInput')} (the id is not a UUID).`,
    {
      title: Errors.WebhookEventTypeNotSubscribed.title,
      status: 422,
      detail: 'The endpoint is not subscribed to fin.invoice.paid; it receives fin.invoice.created.',
      detail_key: Errors.WebhookEventTypeNotSubscribed.detailKey,
      code: 'event_type_not_subscribed',
      field: 'event_type',
    },
  )
  send(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string, @ValidBody(TestEventDto) body: TestEventDto) {
    return this.deliveries.sendTestEvent(auth, id, body);
  }
}
