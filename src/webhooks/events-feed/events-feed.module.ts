import { Module } from '@nestjs/common';
import { EventsFeedController } from './events-feed.controller.js';
import { EventsFeedService } from './events-feed.service.js';

/** The events feed (GET /v1/events): the company's events, as webhooks deliver them, for reconciliation and polling. */
@Module({ controllers: [EventsFeedController], providers: [EventsFeedService] })
export class EventsFeedModule {}
