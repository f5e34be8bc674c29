import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { AccessService } from '../access/access.service.js';
import { AppConfig } from '../config/app-config.js';
import { TenantTurns } from '../tenancy/tenant-turns.js';
import { missingScope } from '../access/missing-scope.js';
import type { Scope } from '../catalog/scopes.js';
import { DomainException } from '../errors/domain.exception.js';
import { Metrics } from '../metrics/metrics.service.js';
import { AuthFailureLimiter } from '../rate-limit/auth-failure-limiter.service.js';
import { rateLimited, rateLimitHeader, rateLimitPolicyHeader } from '../rate-limit/rate-limit-headers.js';
import { RATE_LIMIT_METADATA, STORED_REPEATS_METADATA } from '../rate-limit/rate-limit.decorator.js';
import type { RateLimitName, RateLimitWindow } from '../rate-limit/rate-limit.policies.js';
import { type RateLimitDecision, RateLimiterService } from '../rate-limit/rate-limiter.service.js';
import { ApiKeyAuthenticator } from './api-key-authenticator.service.js';
import type { ApiRequest, AuthContext } from './auth-context.js';
import { bearerCredentials } from './bearer-credentials.js';
import { PUBLIC_METADATA, SCOPES_METADATA } from '../route-access/require-scopes.decorator.js';
import { refuseUnparsableBody } from '../validation/validated-body.js';

/**
 * The one global guard, deny by default: a route is reachable only if it is `@Public()` or
 * declares `@RequireScopes(...)` and the key holds every scope listed. For a route with scopes,
 * in this order:
 * 1. the key is read from the one `Authorization: Bearer` header;
 * 2. a key in the in-process cache is checked at once: a wrong secret is a 401 and counts
 *    nothing against the key, a missing scope a 403 that counts nothing either;
 * 3. an address blocked for failed authentications gets 429 (`AuthFailureLimiter`), unless its
 *    key was cached and checked;
 * 4. the rate-limit count in Redis starts: a cached key's windows (keyed by its prefix) and its
 *    company's in one round trip; a key not cached has its own windows counted while it is read
 *    (neither waits for the other), its company's once it is known;
 * 5. a failed check is a 401 (or the 429 of too many failures) and gives its count back; a
 *    missing scope is a 403 and gives it back too; otherwise the count decides: 429 with
 *    Retry-After, or the request goes on with `RateLimit-Policy` and `RateLimit` headers;
 * 6. once one of its company's turns is free (API_TENANT_CONCURRENCY in this process), held
 *    until its handler is done (givingBackTurn); a key or company changed meanwhile (revoked,
 *    say) is read again, so no request waiting for its turn runs on a key revoked before it.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly turns: TenantTurns;

  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(ApiKeyAuthenticator) private readonly authenticator: ApiKeyAuthenticator,
    @Inject(RateLimiterService) private readonly limiter: RateLimiterService,
    @Inject(AuthFailureLimiter) private readonly failures: AuthFailureLimiter,
    @Inject(Metrics) private readonly metrics: Metrics,
    @Inject(AccessService) private readonly access: AccessService,
    @Inject(AppConfig) config: AppConfig,
  ) {
    this.turns = new TenantTurns(config.API_TENANT_CONCURRENCY, config.DATABASE_STATEMENT_TIMEOUT_MS);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ApiRequest>();
    // The first global guard: a body that is not JSON is refused before anything else, as its route refuses a body that is no object.
    refuseUnparsableBody(request.unparsableBody, context.getHandler());
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_METADATA, targets)) return true;

    const generation = this.authenticator.generation;
    // The client address (proxy-aware, so not free to compute) only when a limit needs it.
    const address = () => request.ip ?? '';
    const blocked = this.failures.blocked(address);
    const failed = async (failure: unknown) =>
      blocked ?? (failure instanceof DomainException && failure.errorName === 'Unauthenticated' ? await this.failures.failed(address(), failure) : failure);
    let credentials;
    try {
      credentials = bearerCredentials(request);
    } catch (failure) {
      throw await failed(failure);
    }
    request.keyPrefix = credentials.prefix;

    // A cached key is checked before it is counted: a wrong secret never spends its holder's allowance.
    let cached;
    try {
      cached = this.authenticator.cachedCaller(credentials);
    } catch (failure) {
      throw await failed(failure);
    }
    // A blocked address keeps only the keys in use here: a cached key's holder behind the same
    // address (a shared NAT) is not locked out by another client's failures; any other key waits.
    if (blocked && !cached) throw blocked;

    const routeLimit = this.reflector.getAllAndOverride<RateLimitName | undefined>(RATE_LIMIT_METADATA, targets);
    const windows = this.limiter.windowsFor(routeLimit);
    const required = this.reflector.getAllAndOverride<Scope[] | undefined>(SCOPES_METADATA, targets);
    // A cached key is refused for its scopes before anything is counted, and its company is
    // known: its key's windows and its company's are counted in one round trip. A key not
    // cached is counted while it is read, its company's window once it is known.
    if (cached) this.checkScopes(cached, required);
    const counting = this.limiter.consumeWithCompany(windows, credentials.prefix, cached?.tenantId);
    // A request that turns out not to be the key holder's, or not allowed its route, does not count.
    const refund = () => void counting.then((count) => this.limiter.refund(count.key, credentials.prefix), () => undefined);
    try {
      request.auth = cached ?? (await this.authenticator.authenticate(credentials));
    } catch (failure) {
      refund();
      throw await failed(failure);
    }
    if (!cached) {
      try {
        this.checkScopes(request.auth, required);
      } catch (refusal) {
        refund();
        throw refusal;
      }
    }
    const response = context.switchToHttp().getResponse<Response>();
    const windowsOfBoth = [...windows, this.limiter.companyWindow];
    const count = await counting;
    const decision = count.key;
    // The company's count only once the key's allows the request: a key past its own limit then
    // spends none of its company's allowance, however many of its requests arrive at once.
    let companyDecision: RateLimitDecision | undefined;
    if (!decision.allowed) {
      // Refused by its route's own limit (the replays'), it gives that count back: calls its route
      // refused and gave back meanwhile then free the window again (the general window keeps it).
      const share = this.limiter.routeShare(decision);
      void this.limiter.refund(share, credentials.prefix);
      const refusal = this.applyLimit(windowsOfBoth, [decision], response)!;
      // A repeat of an idempotent call whose first answer is stored gets that answer whatever the
      // limit (spec 8: it is not run again): the idempotency interceptor answers it, or this 429.
      if (share.states.length === 0 || this.reflector.get<boolean | undefined>(STORED_REPEATS_METADATA, context.getHandler()) !== true) throw refusal;
      request.limitRefusal = refusal;
    } else {
      // Refused by its company, the request costs the key's longer windows nothing either (given back).
      companyDecision = count.company ?? (await this.limiter.consumeCompany(decision, credentials.prefix, request.auth.tenantId));
      const refusal = this.applyLimit(windowsOfBoth, [decision, companyDecision], response);
      if (refusal) throw refusal;
    }
    // Held until the handler is done (givingBackTurn), whether or not its client still waits.
    const end = await this.turns.acquire(request.auth.tenantId);
    // The socket too: a request queued behind another on a pipelined connection never sees its response close.
    if (response.closed || request.socket.destroyed) {
      // Gone while it waited: its work would be for no one, and would hold the company's turn.
      end();
      throw new DomainException('ServiceUnavailable', 'The client went away before its turn came.');
    }
    // A change waits for every process to drop what it cached (key:revoke, tenant:deactivate), then
    // holds on the next request; one that waited here for up to DATABASE_STATEMENT_TIMEOUT_MS meanwhile
    // would otherwise still run on the key as it was read before.
    if (this.authenticator.generation !== generation) {
      const tenantId = request.auth.tenantId;
      try {
        // authenticate reads the cache first: a key the change did not touch is not read again.
        request.auth = await this.authenticator.authenticate(credentials);
        this.checkScopes(request.auth, required);
      } catch (refusal) {
        end();
        // Refused, it counts for neither the key nor its company, as a refusal before the turn does not.
        refund();
        if (companyDecision) void this.limiter.refund(companyDecision, tenantId);
        throw refusal;
      }
    }
    request.endTurn = end;
    if (routeLimit && companyDecision) {
      const counted = companyDecision;
      request.refundRouteLimit = () => {
        request.refundRouteLimit = undefined;
        const share = this.limiter.routeShare(decision);
        void this.limiter.refund(share, credentials.prefix);
        // The answer's RateLimit header then shows the route's windows as they stand again.
        const given = new Set(share.states);
        const states = decision.states.map((state) => (given.has(state) ? { ...state, remaining: state.remaining + 1 } : state));
        if (!response.headersSent) response.setHeader('RateLimit', rateLimitHeader([...states, ...counted.states]));
      };
    }
    return true;
  }

  /** The 403 of a key without every scope its route requires, or of a route that declares none. */
  private checkScopes(caller: AuthContext, required: Scope[] | undefined): void {
    if (!required) throw new DomainException('MissingScope', 'This route declares no scope and is closed.');
    const missing = this.access.missingScopes(caller.scopes, required);
    if (missing.length > 0) throw missingScope(missing);
  }

  /** RateLimit headers on the answer (the key's windows, then the company's), or the 429 of the window that refused the request. */
  private applyLimit(windows: readonly RateLimitWindow[], decisions: readonly RateLimitDecision[], response: Response): DomainException | undefined {
    const headers = { 'RateLimit-Policy': rateLimitPolicyHeader(windows), RateLimit: rateLimitHeader(decisions.flatMap((decision) => decision.states)) };
    const denied = decisions.find((decision) => !decision.allowed);
    if (!denied) {
      for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
      return undefined;
    }
    // The window that refused it: the last a refused count reached.
    const refused = denied.states[denied.states.length - 1];
    this.metrics.rateLimitRefusals.inc({ limit: refused.window.id });
    const whose = refused.window === this.limiter.companyWindow ? "This API key's company (all its keys together)" : 'This API key';
    return rateLimited(
      refused.resetMs,
      (retryAfter) => `${whose} exceeded the limit "${refused.window.id}" of ${refused.window.points} requests per ${refused.window.durationSeconds} s; retry after ${retryAfter} s.`,
      headers,
    );
  }
}
