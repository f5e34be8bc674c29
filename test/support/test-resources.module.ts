import { Body, Controller, Delete, Get, HttpCode, Inject, Module, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AuthContext, CurrentAuth } from '../../src/platform/auth/auth-context.js';
import { Public, RequireScopes } from '../../src/platform/route-access/require-scopes.decorator.js';
import { resourceErrors } from '../../src/platform/catalog/errors.js';
import { Scope } from '../../src/platform/catalog/scopes.js';
import { AppConfig } from '../../src/platform/config/app-config.js';
import { DomainException } from '../../src/platform/errors/domain.exception.js';
import { EventDataCheck } from '../../src/platform/events/event-data-check.js';
import { EventPublisher } from '../../src/platform/events/event-publisher.service.js';
import { OutboxEvent } from '../../src/platform/events/event.entity.js';
import { Idempotent } from '../../src/platform/idempotency/idempotent.decorator.js';
import { type PageRequest, PageParams } from '../../src/platform/pagination/page.js';
import { Paginator } from '../../src/platform/pagination/paginator.service.js';
import { RateLimit } from '../../src/platform/rate-limit/rate-limit.decorator.js';
import { TenantData } from '../../src/platform/tenancy/tenant-data.js';
import { UuidPipe } from '../../src/platform/validation/uuid.pipe.js';

/** `?delay_ms=` lets a test hold a request open, to send a concurrent repeat meanwhile. */
async function delay(delayMs: string | undefined): Promise<void> {
  if (delayMs !== undefined) await sleep(Math.min(Number(delayMs) || 0, 5000));
}

/**
 * Test-only routes over the outbox table, to exercise the paginator and request pipeline
 * before real resources exist. Mounted by tests through startApi({ modules }), never in
 * production. Every POST publishes exactly one event per execution, so tests count executions
 * by counting the company's events.
 */
@Controller('v1/test_events')
class TestEventsController {
  constructor(
    @Inject(TenantData) private readonly data: TenantData,
    @Inject(Paginator) private readonly paginator: Paginator,
    @Inject(EventPublisher) private readonly events: EventPublisher,
    @Inject(EventDataCheck) private readonly check: EventDataCheck,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  @Get()
  @RequireScopes(Scope.FinInvoicesRead)
  list(@CurrentAuth() auth: AuthContext, @PageParams() page: PageRequest) {
    const query = this.data.forTenant(auth.tenantId).repository(OutboxEvent).select('event');
    return this.paginator.paginate(query, page, {
      list: 'test_events',
      invalidCursor: resourceErrors('invoices').invalidCursor,
      map: (event) => ({ id: event.id, type: event.type }),
    });
  }

  @Get(':id')
  @RequireScopes(Scope.FinInvoicesRead)
  async retrieve(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string) {
    const event = await this.data.forTenant(auth.tenantId).repository(OutboxEvent).findOne({ id });
    if (!event) throw new DomainException(resourceErrors('invoices').notFound);
    return { id: event.id, type: event.type };
  }

  @Post()
  @HttpCode(201)
  @RequireScopes(Scope.FinInvoicesWrite)
  @Idempotent()
  async create(
    @CurrentAuth() auth: AuthContext,
    @Body() body: unknown,
    @Query('delay_ms') delayMs: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ) {
    await delay(delayMs);
    const data = Object.assign(await this.check.example('fin.invoice.created'), { body });
    const event = await this.data.transaction(auth.tenantId, (scope) => this.events.publish(scope, 'fin.invoice.created', data));
    response.setHeader('Location', `${this.config.publicBaseUrl}/v1/test_events/${event.id}`);
    return event;
  }
}

/**
 * One idempotent route per kind of answer: each execution publishes one event (committed
 * before the answer, like a real change), then answers as `:outcome` says.
 */
@Controller('v1/test_idempotency')
class TestIdempotencyController {
  constructor(
    @Inject(TenantData) private readonly data: TenantData,
    @Inject(EventPublisher) private readonly events: EventPublisher,
    @Inject(EventDataCheck) private readonly check: EventDataCheck,
  ) {}

  @Post(':outcome')
  @RequireScopes(Scope.FinInvoicesWrite)
  @Idempotent()
  async post(@CurrentAuth() auth: AuthContext, @Param('outcome') outcome: string, @Body() body: unknown, @Query('delay_ms') delayMs: string | undefined) {
    await delay(delayMs);
    return this.answer(auth, outcome, body);
  }

  /** Declared as answering with its transaction's result, which it does not (it answers `{ id, outcome }`). */
  @Post('misdeclared/:outcome')
  @RequireScopes(Scope.FinInvoicesWrite)
  @Idempotent({ answersWithResult: true })
  async misdeclared(@CurrentAuth() auth: AuthContext, @Param('outcome') outcome: string, @Body() body: unknown) {
    // A read before its transaction, which such a route must not make.
    if (outcome === 'read_first') await this.data.forTenant(auth.tenantId).query(`SELECT count(*) FROM customers WHERE tenant_id = $1`);
    // Two transactions: the second commits after the first stored its answer.
    if (outcome === 'twice') await this.answer(auth, 'ok', body);
    return this.answer(auth, outcome, body);
  }

  @Patch('items/:id')
  @RequireScopes(Scope.FinInvoicesWrite)
  @Idempotent()
  async patch(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string, @Body() body: unknown) {
    return this.answer(auth, 'ok', { id, body });
  }

  @Delete('items/:id')
  @HttpCode(204)
  @RequireScopes(Scope.FinInvoicesWrite)
  @Idempotent()
  async remove(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string): Promise<void> {
    await this.answer(auth, 'ok', { id });
  }

  private async answer(auth: AuthContext, outcome: string, body: unknown): Promise<unknown> {
    idempotentRuns.count += 1;
    if (outcome === 'outside_transaction') {
      // A change not in TenantData.transaction: it would commit without the request's claim.
      await this.data.forTenant(auth.tenantId).query(`INSERT INTO customers (tenant_id, name) VALUES ($1, 'made outside a transaction')`);
      return { outcome };
    }
    const data = Object.assign(await this.check.example('fin.invoice.updated'), { outcome, body });
    const event = await this.data.transaction(auth.tenantId, async (scope) => {
      const published = await this.events.publish(scope, 'fin.invoice.updated', data);
      // As in the application's routes, a refusal or a failure comes before the commit: the change rolls back with it.
      refuse(outcome);
      return published;
    });
    switch (outcome) {
      case 'large':
        return { id: event.id, padding: 'x'.repeat(300 * 1024) };
      case 'commit_in_doubt':
        // As pg reports a connection lost while COMMIT was answered: the change above is saved.
        throw new Error('Connection terminated unexpectedly');
      case 'background':
        // Work the request leaves running: it commits after the answer.
        setTimeout(() => void this.data.transaction(auth.tenantId, (scope) => this.events.publish(scope, 'fin.invoice.updated', data)).catch(() => undefined), 100);
        return { id: event.id, outcome };
      default:
        return { id: event.id, outcome };
    }
  }
}

/** Runs of the test_idempotency handler, those whose change rolled back included. */
export const idempotentRuns = { count: 0 };

function refuse(outcome: string): void {
  switch (outcome) {
    case 'invalid_reference':
      throw new DomainException('InvalidReference', 'The customer does not exist.', { field: 'customer_id' });
    case 'invalid_input':
      throw new DomainException('InvalidInput', 'Malformed id.', { field: 'id', code: 'invalid_format' });
    case 'validation_failed':
      throw new DomainException('InvoiceValidationFailed', 'notes is too long.', {
        errors: [{ path: 'notes', code: 'too_long', message: 'notes is over 2,000 characters' }],
      });
    case 'not_found':
      throw new DomainException(resourceErrors('invoices').notFound, 'No such invoice.');
    case 'crash':
      throw new Error('simulated failure with a secret detail');
  }
}

/** Routes under the named rate limits, and one without API key (never counted). */
@Controller('v1/test_rate_limits')
class TestRateLimitsController {
  @Get('public')
  @Public()
  open() {
    return { ok: true };
  }

  @Get('replay')
  @RequireScopes(Scope.WebhooksManage)
  @RateLimit('webhook_replay')
  replay() {
    return { ok: true };
  }

  @Get('replay_failed')
  @RequireScopes(Scope.WebhooksManage)
  @RateLimit('webhook_replay_failed')
  replayFailed() {
    return { ok: true };
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

@Module({ controllers: [TestEventsController, TestIdempotencyController, TestRateLimitsController, TestFailureController] })
export class TestResourcesModule {}
