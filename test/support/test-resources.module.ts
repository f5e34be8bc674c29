import { Body, Controller, Get, HttpCode, Inject, Module, Param, Post } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { type AuthContext, CurrentAuth } from '../../src/platform/auth/auth-context.js';
import { Public, RequireScopes } from '../../src/platform/auth/require-scopes.decorator.js';
import { Scope } from '../../src/platform/catalog/scopes.js';
import { DomainException } from '../../src/platform/errors/domain.exception.js';
import { EventPublisher } from '../../src/platform/events/event-publisher.service.js';
import { OutboxEvent } from '../../src/platform/events/event.entity.js';
import { type PageRequest, PageParams } from '../../src/platform/pagination/page.js';
import { Paginator } from '../../src/platform/pagination/paginator.service.js';
import { UuidPipe } from '../../src/platform/validation/uuid.pipe.js';

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

  @Get(':id')
  @RequireScopes(Scope.FinInvoicesRead)
  async retrieve(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string) {
    const event = await this.dataSource.getRepository(OutboxEvent).findOneBy({ tenantId: auth.tenantId, id });
    if (!event) throw new DomainException('InvoicesNotFound');
    return { id: event.id, type: event.type };
  }

  @Post()
  @HttpCode(201)
  @RequireScopes(Scope.FinInvoicesWrite)
  async create(@CurrentAuth() auth: AuthContext, @Body() body: unknown) {
    return this.dataSource.transaction((manager) => this.events.publish(manager, auth.tenantId, 'fin.invoice.created', body));
  }
}

/** A route that fails unexpectedly, to show that a 5xx never reveals internals. */
@Controller('v1/test_failure')
class TestFailureController {
  static readonly SECRET_MESSAGE = 'connection to db-internal.local:5432 failed for user app_owner';

  @Get()
  @Public()
  fail(): never {
    throw new Error(TestFailureController.SECRET_MESSAGE);
  }
}

export const TEST_FAILURE_MESSAGE = TestFailureController.SECRET_MESSAGE;

@Module({ controllers: [TestEventsController, TestFailureController] })
export class TestResourcesModule {}
