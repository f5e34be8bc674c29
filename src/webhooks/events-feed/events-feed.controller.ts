import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiProblem, detailKey } from '../../platform/api-docs/api-problem-responses.decorator.js';
import { type AuthContext, CurrentAuth } from '../../platform/auth/auth-context.js';
import { Errors } from '../../platform/catalog/errors.js';
import { ApiPaginatedResponse } from '../../platform/pagination/api-page.decorator.js';
import { type PageRequest, PageParams } from '../../platform/pagination/page.js';
import { AnyApiKey } from '../../platform/route-access/require-scopes.decorator.js';
import { UuidPipe } from '../../platform/validation/uuid.pipe.js';
import { eventTypesParam, sinceParam } from '../event-filters.js';
import { EventDto } from './dto/event.dto.js';
import { EventsFeedService } from './events-feed.service.js';

const WHO_SEES_WHAT =
  'A key sees exactly the events it could subscribe an endpoint to: those of the families whose read scope it holds (a write scope ' +
  'counts), identity and messaging events with their scopes, and with `int:*` every event, those without a read endpoint included. ' +
  'Personal-data events are listed to a key with their scope, as the read endpoints show the same records; the personal-data grant ' +
  'governs deliveries to a receiver. Test events are never listed.';

@ApiTags('Events')
@Controller('v1/events')
export class EventsFeedController {
  constructor(@Inject(EventsFeedService) private readonly feed: EventsFeedService) {}

  @Get()
  @AnyApiKey()
  @ApiOperation({
    summary: 'List the events of the company',
    description:
      'What happened, newest first, for the retention period (`EVENTS_RETENTION_DAYS`, 30 days by default): reconcile a receiver that ' +
      'was down, or poll for changes. Each item is exactly the JSON object a webhook delivers for the event in the current API version ' +
      `(same \`id\` as the deliveries' envelope and \`Idempotency-Key\`). ${WHO_SEES_WHAT} No event ever appears below one already ` +
      'listed: an event waits until every transaction of its company that published an event and began before it has ended (usually milliseconds), so reading ' +
      'from the newest down to the first event already seen, or `since` the newest `created_at` seen (inclusive; deduplicate on `id`), ' +
      `misses nothing. A cursor is bound to its filters: reused with others it is ${detailKey('EventsInvalidCursor')}.`,
  })
  @ApiQuery({
    name: 'types',
    required: false,
    schema: { type: 'string' },
    example: 'fin.invoice.created,fin.invoice.paid',
    description: `Exact catalogue types, separated by commas. An unknown one is ${detailKey('WebhookUnknownEventType')} with \`unknown_event_types\`; a type the key may not see lists nothing.`,
  })
  @ApiQuery({
    name: 'since',
    required: false,
    schema: { type: 'string', format: 'date-time' },
    example: '2026-05-16T08:00:00Z',
    description: `RFC 3339 date-time with a time zone, inclusive. A bare date or other text is ${detailKey('WebhookInvalidSince')}.`,
  })
  @ApiProblem(
    422,
    `${detailKey('WebhookUnknownEventType')} (\`types\`), ${detailKey('WebhookInvalidSince')} (\`since\`), ${detailKey('EventsInvalidCursor')} ` +
      `(a cursor of another list, key or filter), ${detailKey('InvalidInput')} (\`limit\` not an integer, or a parameter given twice).`,
    {
      title: Errors.WebhookUnknownEventType.title,
      status: 422,
      detail: 'Not in the event catalogue: "fin.invoice.deleted". GET /v1/event_types lists the types.',
      detail_key: Errors.WebhookUnknownEventType.detailKey,
      code: 'unknown_event_type',
      field: 'types',
      unknown_event_types: ['fin.invoice.deleted'],
    },
  )
  @ApiPaginatedResponse(EventDto, 'A page of events.')
  list(@CurrentAuth() auth: AuthContext, @Query('types') types: unknown, @Query('since') since: unknown, @PageParams() page: PageRequest) {
    return this.feed.list(auth, { types: eventTypesParam(types, 'types'), since: sinceParam(since) }, page);
  }

  @Get(':id')
  @AnyApiKey()
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' }, description: 'The event id (a delivery’s envelope `id`).' })
  @ApiOperation({ summary: 'Retrieve an event', description: `The feed's item for one event. ${WHO_SEES_WHAT}` })
  @ApiOkResponse({ type: EventDto })
  @ApiProblem(404, `${detailKey('EventNotFound')}: no such event in this company, a test event, one past retention, or one the key may not see.`)
  @ApiProblem(422, `${detailKey('InvalidInput')}: the id is not a UUID.`)
  get(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string) {
    return this.feed.get(auth, id);
  }
}
