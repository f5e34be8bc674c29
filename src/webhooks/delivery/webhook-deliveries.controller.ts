import { Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { type AuthContext, CurrentAuth } from '../../platform/auth/auth-context.js';
import { RequireScopes } from '../../platform/route-access/require-scopes.decorator.js';
import { Scope } from '../../platform/catalog/scopes.js';
import { Idempotent } from '../../platform/idempotency/idempotent.decorator.js';
import { ApiPaginatedResponse } from '../../platform/pagination/api-page.decorator.js';
import { type PageRequest, PageParams } from '../../platform/pagination/page.js';
import { RateLimit } from '../../platform/rate-limit/rate-limit.decorator.js';
import { UuidPipe } from '../../platform/validation/uuid.pipe.js';
import { ValidBody } from '../../platform/validation/validated-body.js';
import { ApiProblem, detailKey } from '../../platform/api-docs/api-problem-responses.decorator.js';
import { DomainException } from '../../platform/errors/domain.exception.js';
import { eventTypesParam, sinceParam, singleParam } from '../event-filters.js';
import { NoBodyDto } from '../dto/webhook-endpoint-input.dto.js';
import { DeliveryAction } from './delivery-action.decorator.js';
import { ReplayFailedResultDto, WebhookDeliveryDetailDto, WebhookDeliveryDto } from './dto/webhook-delivery.dto.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from './webhook-delivery.entity.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';

const ENDPOINT_ID = ApiParam({ name: 'id', description: 'The webhook endpoint.', schema: { type: 'string', format: 'uuid' } });
const DELIVERY_ID = ApiParam({ name: 'delivery_id', schema: { type: 'string', format: 'uuid' } });
const ENDPOINT_NOT_FOUND = ApiProblem(404, `${detailKey('WebhookEndpointNotFound')}: not this key's endpoint (or not its company's, for an \`int:*\` key); ${detailKey('TenantNotFound')} when the company is inactive.`);
const DELIVERY_NOT_FOUND = ApiProblem(
  404,
  `${detailKey('WebhookEndpointNotFound')} or ${detailKey('WebhookDeliveryNotFound')}: not this key's endpoint, or not its delivery; ${detailKey('TenantNotFound')} when the company is inactive.`,
);
const NOT_ACTIVE = `${detailKey('WebhookEndpointNotActive')}: the endpoint is paused, disabled or deleted`;

@ApiTags('Webhook deliveries')
@Controller('v1/webhook_endpoints/:id/deliveries')
@RequireScopes(Scope.WebhooksManage)
export class WebhookDeliveriesController {
  constructor(@Inject(WebhookDeliveriesService) private readonly deliveries: WebhookDeliveriesService) {}

  @Get()
  @ENDPOINT_ID
  @ApiOperation({
    summary: 'List the deliveries of a webhook endpoint',
    description:
      'Newest first, with a cursor; `status`, `event_type` and `since` narrow the list and combine with each other and the cursor. ' +
      `A cursor is bound to its filters: an unreadable one, or one reused with other filters, gives 422 ${detailKey('InvalidCursor')}.`,
  })
  @ApiQuery({ name: 'status', required: false, schema: { type: 'string', enum: [...DELIVERY_STATUSES] }, description: `Only deliveries in this state; anything else is ${detailKey('InvalidInput')}.` })
  @ApiQuery({
    name: 'event_type',
    required: false,
    schema: { type: 'string' },
    example: 'fin.invoice.created',
    description: `Only deliveries of this exact catalogue type; an unknown one is ${detailKey('WebhookUnknownEventType')}.`,
  })
  @ApiQuery({
    name: 'since',
    required: false,
    schema: { type: 'string', format: 'date-time' },
    description: `Only deliveries created at or after this RFC 3339 date-time; a bare date or other text is ${detailKey('WebhookInvalidSince')}.`,
  })
  @ApiProblem(
    422,
    `${detailKey('InvalidCursor')} (unreadable, or issued for other filters), ${detailKey('WebhookUnknownEventType')} (\`event_type\`), ` +
      `${detailKey('WebhookInvalidSince')} (\`since\`), ${detailKey('InvalidInput')} (\`status\` not a delivery state, a parameter given twice, \`limit\` not an integer, a malformed id).`,
  )
  @ApiPaginatedResponse(WebhookDeliveryDto, 'A page of deliveries.')
  @ENDPOINT_NOT_FOUND
  list(
    @CurrentAuth() auth: AuthContext,
    @Param('id', UuidPipe) id: string,
    @Query('status') status: unknown,
    @Query('event_type') eventType: unknown,
    @Query('since') since: unknown,
    @PageParams() page: PageRequest,
  ) {
    const types = eventTypesParam(eventType, 'event_type');
    if (types && types.length > 1) throw new DomainException('InvalidInput', 'event_type names one event type.', { field: 'event_type', code: 'invalid_format' });
    return this.deliveries.list(auth, id, { status: deliveryStatusParam(status), eventType: types?.[0], since: sinceParam(since) }, page);
  }

  @Get(':delivery_id')
  @ENDPOINT_ID
  @DELIVERY_ID
  @ApiOperation({ summary: 'Retrieve a delivery with its attempts', description: 'Each attempt: start, duration, status code or error kind, and the first 20 kB of the answer.' })
  @ApiOkResponse({ type: WebhookDeliveryDetailDto })
  @DELIVERY_NOT_FOUND
  @ApiProblem(422, `${detailKey('InvalidInput')} (an id not a UUID).`)
  get(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string, @Param('delivery_id', UuidPipe) deliveryId: string) {
    return this.deliveries.get(auth, id, deliveryId);
  }

  @Post('replay_failed')
  @HttpCode(202)
  @Idempotent()
  @RateLimit('webhook_replay_failed')
  @ENDPOINT_ID
  @ApiQuery({
    name: 'since',
    required: false,
    schema: { type: 'string', format: 'date-time' },
    description: 'RFC 3339 date-time (with a time zone); default: 24 hours ago. A bare date or other text gives 422 `invalid_since`.',
  })
  @ApiOperation({
    summary: 'Replay the failed and dead deliveries of an endpoint',
    description:
      'Queues a new pending delivery for every failed or dead delivery created since `since`, oldest first, at most 1,000 per call. ' +
      'Replays, deliveries already replayed, and personal-data deliveries when the endpoint is not enabled for personal data are skipped. ' +
      'Replays go to the current URL, signed with the current secret. Limited to 5 calls per minute and 30 per hour per key. ' +
      '409 `endpoint_not_active` when the endpoint is paused, disabled or deleted. `since` is a query parameter: there is no body, and a ' +
      'body member is 422 `unknown_field`.',
  })
  @ApiAcceptedResponse({ type: ReplayFailedResultDto })
  @ENDPOINT_NOT_FOUND
  @ApiProblem(409, NOT_ACTIVE)
  @ApiProblem(422, `${detailKey('InvalidInput')} (an id not a UUID); ${detailKey('WebhookInvalidSince')}; ${detailKey('WebhookUnknownField')} (a body member: there is no body).`)
  replayFailed(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string, @Query('since') since: unknown, @ValidBody(NoBodyDto) _body: NoBodyDto) {
    return this.deliveries.replayFailed(auth, id, since);
  }

  @Post(':delivery_id/retry')
  @DeliveryAction()
  @ENDPOINT_ID
  @DELIVERY_ID
  @ApiOperation({
    summary: 'Retry a pending delivery now',
    description:
      'Makes the next attempt of a pending delivery at once instead of at `next_attempt_at`, e.g. after a fix on the receiver. The ' +
      'attempt counts as one of the eight and obeys the endpoint\'s in-flight cap, circuit breaker and Retry-After. While an attempt is ' +
      'in flight nothing more is sent; the answer shows the delivery as it stands. Shares the replay limit (60 per minute per key).',
  })
  @ApiAcceptedResponse({ type: WebhookDeliveryDto, description: 'The delivery, pending, due now (or with its attempt in flight).' })
  @DELIVERY_NOT_FOUND
  @ApiProblem(
    409,
    `${detailKey('WebhookDeliveryNotPending')} (code \`delivery_not_pending\`, \`delivery_status\`): it has finished, replay it instead; ` +
      `${NOT_ACTIVE}.`,
  )
  @ApiProblem(422, `${detailKey('InvalidInput')} (an id not a UUID); ${detailKey('WebhookUnknownField')} (a body member: there is no body).`)
  retry(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string, @Param('delivery_id', UuidPipe) deliveryId: string, @ValidBody(NoBodyDto) _body: NoBodyDto) {
    return this.deliveries.retry(auth, id, deliveryId);
  }

  @Post(':delivery_id/replay')
  @DeliveryAction()
  @ENDPOINT_ID
  @DELIVERY_ID
  @ApiOperation({
    summary: 'Replay one delivery',
    description:
      'Queues a new pending delivery of the same event (same envelope id and body) to the endpoint\'s current URL, with a fresh ' +
      'signature and timestamp; `replayed_from` names the original. Any finished delivery (delivered, failed, dead) can be replayed; ' +
      'a pending one gives 409 `delivery_pending`. 409 `endpoint_not_active` when the endpoint is paused, disabled or deleted; ' +
      '403 `pii_not_granted` for a personal-data delivery when the endpoint is not enabled for personal data. 60 per minute per key. No body.',
  })
  @ApiAcceptedResponse({ type: WebhookDeliveryDto })
  @DELIVERY_NOT_FOUND
  @ApiProblem(403, `${detailKey('MissingScope')}; ${detailKey('WebhookPiiNotGranted')}: a personal-data delivery, and the endpoint is not enabled for personal data.`)
  @ApiProblem(409, `${detailKey('WebhookDeliveryPending')}: the delivery has not finished; ${NOT_ACTIVE}.`)
  @ApiProblem(422, `${detailKey('InvalidInput')} (an id not a UUID); ${detailKey('WebhookUnknownField')} (a body member: there is no body).`)
  replay(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string, @Param('delivery_id', UuidPipe) deliveryId: string, @ValidBody(NoBodyDto) _body: NoBodyDto) {
    return this.deliveries.replay(auth, id, deliveryId);
  }
}

function deliveryStatusParam(value: unknown): DeliveryStatus | undefined {
  const status = singleParam(value, 'status');
  if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status)) {
    throw new DomainException('InvalidInput', `status must be one of ${DELIVERY_STATUSES.join(', ')}.`, { field: 'status', code: 'invalid_value' });
  }
  return status as DeliveryStatus | undefined;
}
