import { Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { type AuthContext, CurrentAuth } from '../../platform/auth/auth-context.js';
import { RequireScopes } from '../../platform/route-access/require-scopes.decorator.js';
import { Scope } from '../../platform/catalog/scopes.js';
import { Idempotent } from '../../platform/idempotency/idempotent.decorator.js';
import { ApiProblemResponses } from '../../platform/api-docs/api-problem-responses.decorator.js';
import { ApiPaginatedResponse } from '../../platform/pagination/api-page.decorator.js';
import { type PageRequest, PageParams } from '../../platform/pagination/page.js';
import { RateLimit } from '../../platform/rate-limit/rate-limit.decorator.js';
import { UuidPipe } from '../../platform/validation/uuid.pipe.js';
import { ReplayFailedResultDto, WebhookDeliveryDetailDto, WebhookDeliveryDto } from './dto/webhook-delivery.dto.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';

const ENDPOINT_ID = ApiParam({ name: 'id', description: 'The webhook endpoint.', schema: { type: 'string', format: 'uuid' } });
const DELIVERY_ID = ApiParam({ name: 'delivery_id', schema: { type: 'string', format: 'uuid' } });

@ApiTags('Webhook deliveries')
@Controller('v1/webhook_endpoints/:id/deliveries')
@RequireScopes(Scope.WebhooksManage)
export class WebhookDeliveriesController {
  constructor(@Inject(WebhookDeliveriesService) private readonly deliveries: WebhookDeliveriesService) {}

  @Get()
  @ENDPOINT_ID
  @ApiOperation({
    summary: 'List the deliveries of a webhook endpoint',
    description: 'Newest first, with a cursor. An unreadable cursor gives 422 `errors.integrations.invalid_cursor`.',
  })
  @ApiPaginatedResponse(WebhookDeliveryDto, 'A page of deliveries.')
  @ApiProblemResponses(404)
  list(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string, @PageParams() page: PageRequest) {
    return this.deliveries.list(auth, id, page);
  }

  @Get(':delivery_id')
  @ENDPOINT_ID
  @DELIVERY_ID
  @ApiOperation({ summary: 'Retrieve a delivery with its attempts', description: 'Each attempt: start, duration, status code or error kind, and the first 20 kB of the answer.' })
  @ApiOkResponse({ type: WebhookDeliveryDetailDto })
  @ApiProblemResponses(404, 422)
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
      '409 `endpoint_not_active` when the endpoint is paused, disabled or deleted.',
  })
  @ApiAcceptedResponse({ type: ReplayFailedResultDto })
  @ApiProblemResponses(404, 422)
  replayFailed(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string, @Query('since') since: unknown) {
    return this.deliveries.replayFailed(auth, id, since);
  }

  @Post(':delivery_id/replay')
  @HttpCode(202)
  @Idempotent()
  @RateLimit('webhook_replay')
  @ENDPOINT_ID
  @DELIVERY_ID
  @ApiOperation({
    summary: 'Replay one delivery',
    description:
      'Queues a new pending delivery of the same event (same envelope id and body) to the endpoint\'s current URL, with a fresh ' +
      'signature and timestamp; `replayed_from` names the original. Any finished delivery (delivered, failed, dead) can be replayed; ' +
      'a pending one gives 409 `delivery_pending`. 409 `endpoint_not_active` when the endpoint is paused, disabled or deleted; ' +
      '403 `pii_not_granted` for a personal-data delivery when the endpoint is not enabled for personal data. 60 per minute per key.',
  })
  @ApiAcceptedResponse({ type: WebhookDeliveryDto })
  @ApiProblemResponses(404, 422)
  replay(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string, @Param('delivery_id', UuidPipe) deliveryId: string) {
    return this.deliveries.replay(auth, id, deliveryId);
  }
}
