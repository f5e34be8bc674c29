import { Body, Controller, Get, HttpCode, Inject, Module, Post } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { type AuthContext, CurrentAuth } from '../../src/platform/auth/auth-context.js';
import { RequireScopes } from '../../src/platform/auth/require-scopes.decorator.js';
import { Scope } from '../../src/platform/catalog/scopes.js';
import { EventPublisher } from '../../src/platform/events/event-publisher.service.js';
import { OutboxEvent } from '../../src/platform/events/event.entity.js';
import { type PageRequest, PageParams } from '../../src/platform/pagination/page.js';
import { Paginator } from '../../src/platform/pagination/paginator.service.js';

/**
 * Test-only routes over the outbox table, to exercise the paginator and request pipeline
 * before real resources exist. Mounted by tests through startApi({ modules }), never in
 * production.
 */
@Controller('v1/test_events')
class TestEventsController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(Paginator) private readonly paginator: Paginator,
    @Inject(EventPublisher) private readonly events: EventPublisher,
  ) {}

  @Get()
  @RequireScopes(Scope.FinInvoicesRead)
  list(@CurrentAuth() auth: AuthContext, @PageParams() page: PageRequest) {
    const query = this.dataSource.getRepository(OutboxEvent).createQueryBuilder('event').where('event.tenant_id = :tenantId', { tenantId: auth.tenantId });
    return this.paginator.paginate(query, page, {
      list: 'test_events',
      invalidCursor: 'InvoicesInvalidCursor',
      map: (event) => ({ id: event.id, type: event.type }),
    });
  }

  @Post()
  @HttpCode(201)
  @RequireScopes(Scope.FinInvoicesWrite)
  async create(@CurrentAuth() auth: AuthContext, @Body() body: unknown) {
    return this.dataSource.transaction((manager) => this.events.publish(manager, auth.tenantId, 'fin.invoice.created', body));
  }
}

@Module({ controllers: [TestEventsController] })
export class TestResourcesModule {}
