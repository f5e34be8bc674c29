import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, type HealthCheckResult, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../route-access/require-scopes.decorator.js';
import { DomainException } from '../errors/domain.exception.js';
import { TRANSIENT_RETRY_AFTER_S } from '../errors/problem.js';
import { RedisHealthIndicator } from './redis.health.js';

/**
 * Probes for orchestrators, outside the API contract and so outside the OpenAPI document:
 * `/healthz` says the process serves HTTP, `/readyz` that PostgreSQL and Redis answer.
 */
@ApiExcludeController()
@Controller()
export class HealthController {
  constructor(
    @Inject(HealthCheckService) private readonly health: HealthCheckService,
    @Inject(TypeOrmHealthIndicator) private readonly database: TypeOrmHealthIndicator,
    @Inject(RedisHealthIndicator) private readonly redis: RedisHealthIndicator,
  ) {}

  @Get('healthz')
  @Public()
  @HealthCheck()
  liveness(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /** 200 with terminus' result when both answer; otherwise a 503 problem naming which is down. */
  @Get('readyz')
  @Public()
  @HealthCheck()
  async readiness(): Promise<HealthCheckResult> {
    try {
      return await this.health.check([() => this.database.pingCheck('database', { timeout: 1000 }), () => this.redis.isHealthy('redis')]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const { details } = error.getResponse() as HealthCheckResult;
      const checks = Object.fromEntries(Object.entries(details).map(([name, result]) => [name, result.status]));
      const down = Object.keys(checks).filter((name) => checks[name] !== 'up');
      // Not "unreachable": a database that is up but whose every pooled connection is busy (requests
      // held by a lock) fails the ping as well, and an operator would look for the wrong fault.
      throw new DomainException('ServiceUnavailable', `Not ready: ${down.join(', ')} did not answer within 1 s.`, { checks }, { 'Retry-After': String(TRANSIENT_RETRY_AFTER_S) });
    }
  }
}
