import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import type { ApiRequest } from '../auth/auth-context.js';
import { DomainException } from '../errors/domain.exception.js';
import { rateLimitHeader, rateLimitPolicyHeader, retryAfterSeconds } from './rate-limit-headers.js';
import { RATE_LIMIT_METADATA } from './rate-limit.decorator.js';
import type { RateLimitName } from './rate-limit.policies.js';
import { RateLimiterService } from './rate-limiter.service.js';

/**
 * Global guard, registered after the auth guard: every authenticated request counts against its
 * API key's general limit and the route's named limit. Answers carry `RateLimit-Policy` and
 * `RateLimit`; a refused request gets 429 with `Retry-After`. Routes without a key (`@Public`)
 * are not counted.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(RateLimiterService) private readonly limiter: RateLimiterService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ApiRequest>();
    if (!request.auth) return true;
    const name = this.reflector.getAllAndOverride<RateLimitName | undefined>(RATE_LIMIT_METADATA, [context.getHandler(), context.getClass()]);
    const windows = this.limiter.windowsFor(name);
    const decision = await this.limiter.consume(windows, request.auth.apiKeyId);
    const headers = { 'RateLimit-Policy': rateLimitPolicyHeader(windows), RateLimit: rateLimitHeader(decision.states) };
    if (!decision.allowed) {
      const refused = decision.states[decision.states.length - 1];
      const retryAfter = retryAfterSeconds(refused.resetMs);
      throw new DomainException(
        'RateLimited',
        `This API key exceeded the limit "${refused.window.id}" of ${refused.window.points} requests per ${refused.window.durationSeconds} s; retry after ${retryAfter} s.`,
        {},
        { ...headers, 'Retry-After': String(retryAfter) },
      );
    }
    const response = context.switchToHttp().getResponse<Response>();
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    return true;
  }
}
