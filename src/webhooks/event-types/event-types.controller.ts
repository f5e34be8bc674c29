import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AnyApiKey } from '../../platform/route-access/require-scopes.decorator.js';
import { EventTypeListDto } from './event-types.dto.js';
import { EventTypesListing } from './event-types.listing.js';

/** The event catalogue, published like Stripe's and Svix's: what an endpoint can subscribe to. */
@ApiTags('Webhook endpoints')
@Controller('v1/event_types')
export class EventTypesController {
  constructor(@Inject(EventTypesListing) private readonly listing: EventTypesListing) {}

  @Get()
  @AnyApiKey()
  @ApiOperation({
    summary: 'List the event types',
    description:
      'Every event type an endpoint can subscribe to, in catalogue order, with its description, the scope needed to subscribe, ' +
      'its personal-data flag and the JSON schema of its `data` (the data of the services\' own events; one published by hand through the admin CLI\'s `event:emit` is sent as given). Any valid API key may read it. One page, in the page envelope of every list (`next_cursor` null, `has_more` false; no `limit` or `cursor`). The same ' +
      'catalogue is in this document’s top-level `webhooks` map.',
  })
  @ApiOkResponse({ type: EventTypeListDto })
  list(): EventTypeListDto {
    return this.listing.all();
  }
}
