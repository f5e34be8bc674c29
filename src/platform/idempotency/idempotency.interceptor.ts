import { type CallHandler, type ExecutionContext, Inject, Injectable, Logger, type NestInterceptor, type OnApplicationShutdown } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import type { QueryRunner } from 'typeorm';
import { from, lastValueFrom, map, type Observable, throwError } from 'rxjs';
import type { ApiRequest } from '../auth/auth-context.js';
import { Errors } from '../catalog/errors.js';
import { AppConfig } from '../config/app-config.js';
import { type Commit, withCommitHook } from '../database/commit-hook.js';
import { DomainException } from '../errors/domain.exception.js';
import { PROBLEM_CONTENT_TYPE, toProblem } from '../errors/problem.js';
import { isTransientFault } from '../errors/transient-faults.js';
import { Metrics } from '../metrics/metrics.service.js';
import { requestHashes } from './canonical-json.js';
import { IDEMPOTENT_METHODS, isReplayableBody, isStoredResponse, isValidIdempotencyKey, STALE_CLAIM_SECONDS, storeRetryWaits } from './idempotency-policy.js';
import { type IdempotencyClaim, IdempotencyStore, type StoredResponse } from './idempotency.store.js';
import { routePattern } from '../logging/request-log.js';
import { isUuid } from '../validation/uuid.pipe.js';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENCY_REPLAYED_HEADER = 'Idempotency-Replayed';
/** Route metadata: how the route's answer is stored (`@Idempotent`'s options). */
export const IDEMPOTENT_ROUTE_METADATA = 'integrations:idempotent-route';

export interface IdempotentRoute {
  /** The answer carries a secret, so it is stored encrypted. */
  sealed: boolean;
  /** The handler's work is one transaction, whose result it answers with: the claim goes with its BEGIN, the answer with its COMMIT. */
  answersWithResult: boolean;
  /** The path the answer's `Location` names, from the handler's result. */
  location?: (result: unknown) => string;
}

/** Headers of the first answer that a replay repeats; the rest (trace id, rate limits) are per request. */
const REPLAYED_HEADERS = ['location', 'content-location', 'content-type'] as const;

const CONFLICT_DETAILS = {
  // Spec 7: "title stating the key was reused with a different body, and detail `errors.idempotency.body_mismatch`".
  IdempotencyBodyMismatch: Errors.IdempotencyBodyMismatch.detailKey,
  IdempotencyInProgress: 'A request with this Idempotency-Key is still running; retry when it has finished.',
  IdempotencyReplayUnavailable: 'The request with this Idempotency-Key ran, but its response exceeded 256 KiB and was not kept.',
} as const;
/** The first wait before storing an answer is tried again in the background; each next one doubles. */
const RETRY_FIRST_WAIT_MS = 1000;

const ANSWER_LOST_DETAIL =
  'The request with this Idempotency-Key ran and its change was saved, but the process answering it stopped before its response was kept. ' +
  'Read the resource to see the result; it is not run again.';

/**
 * Runs a POST, PATCH or DELETE at most once per Idempotency-Key (spec section 8) and replays
 * its first answer to repeats. The claim is a row in `idempotency_keys`, so this holds across
 * processes. The request runs detached from the client's connection (a Promise, not a
 * cancellable stream), so its answer is stored even if the client hangs up meanwhile.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor, OnApplicationShutdown {
  private readonly logger = new Logger(IdempotencyInterceptor.name);
  /** Answers being stored again after an outage (settle). */
  private readonly retrying = new Set<NodeJS.Timeout>();

  constructor(
    @Inject(IdempotencyStore) private readonly store: IdempotencyStore,
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(Metrics) private readonly metrics: Metrics,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<ApiRequest>();
    const key = request.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
    const route = this.reflector.get<IdempotentRoute>(IDEMPOTENT_ROUTE_METADATA, context.getHandler());
    const response = context.switchToHttp().getResponse<Response>();
    if (key === undefined || !IDEMPOTENT_METHODS.has(request.method)) {
      // Past its route's limit with no key, nothing can be answered from storage: the 429 the guard held back.
      if (request.limitRefusal) return throwError(() => request.limitRefusal);
      return route.location ? next.handle().pipe(map((value: unknown) => this.locate(response, route, value))) : next.handle();
    }
    return from(this.handle(request, response, key, next, route));
  }

  private locate(response: Response, route: IdempotentRoute, value: unknown): unknown {
    response.setHeader('Location', this.locationOf(route, value)!);
    return value;
  }

  private locationOf(route: IdempotentRoute, result: unknown): string | undefined {
    return route.location && `${this.config.publicBaseUrl}${route.location(result)}`;
  }

  private async handle(request: ApiRequest, response: Response, key: string | string[], next: CallHandler, route: IdempotentRoute): Promise<unknown> {
    // Past its route's limit, only a stored answer is given (its 429 otherwise): nothing runs.
    const refusal = request.limitRefusal;
    try {
      assertOneValidKey(request, key);
    } catch (invalid) {
      throw refusal ?? invalid;
    }
    if (!request.auth) throw new Error('@Idempotent() is only for routes with @RequireScopes');
    const outcome = await this.store.claim(
      {
        tenantId: request.auth.tenantId,
        apiKeyId: request.auth.apiKeyId,
        key,
        method: request.method,
        path: canonicalPath(request),
      },
      requestHashes(request.body, request.query),
      // Its work is its one transaction: that transaction begins with the claim.
      { begin: route.answersWithResult && !refusal },
    );
    switch (outcome.kind) {
      case 'conflict':
        if (refusal) throw refusal;
        throw new DomainException(outcome.error, outcome.reason === 'answer_lost' ? ANSWER_LOST_DETAIL : CONFLICT_DETAILS[outcome.error]);
      case 'replay':
        this.metrics.idempotencyReplays.inc();
        // Answered from storage, the route does not run: nothing of its own limit is spent.
        request.refundRouteLimit?.();
        return this.replay(response, outcome.response);
      case 'claimed':
        if (refusal) {
          await this.store.release(outcome.claim);
          throw refusal;
        }
        return this.execute(outcome.claim, request, response, next, route, outcome.transaction);
    }
  }

  private replay(response: Response, stored: StoredResponse): string | undefined {
    response.status(stored.status);
    for (const [name, value] of Object.entries(stored.headers)) response.setHeader(name, value);
    response.setHeader(IDEMPOTENCY_REPLAYED_HEADER, 'true');
    // Sent as the exact text of the first answer; Nest passes a string through unchanged.
    return stored.body ?? undefined;
  }

  private async execute(
    claim: IdempotencyClaim,
    request: ApiRequest,
    response: Response,
    next: CallHandler,
    route: IdempotentRoute,
    transaction?: QueryRunner,
  ): Promise<unknown> {
    let value: unknown;
    // Work the handler left running (its async context carries the hook) must not touch the
    // claim once the handler is done: its answer is then being stored.
    let handling = true;
    let commits = 0;
    /** The answer stored with the request's one commit, when its route answers with the transaction's result. */
    let storedAtCommit: StoredResponse | undefined;
    const hook = (commit: Commit, result: unknown) => {
      if (!handling) return commit();
      commits += 1;
      // A second commit may change what the request answers: its answer is then stored after all.
      storedAtCommit = commits === 1 && route.answersWithResult ? this.answerAtCommit(response, route, result) : undefined;
      return storedAtCommit ? this.store.commitAnswered(commit, claim, storedAtCommit) : this.store.commitMarked(commit, claim);
    };
    try {
      value = await withCommitHook(hook, () => lastValueFrom(next.handle(), { defaultValue: undefined }).finally(() => (handling = false)), transaction);
    } catch (error) {
      const problem = toProblem(error, this.config.errorsBaseUrl);
      const headers = { ...lowerCaseKeys(problem.headers), 'content-type': PROBLEM_CONTENT_TYPE };
      await this.settle(request, claim, { status: problem.body.status, headers, body: JSON.stringify(problem.body) }, problem.body.detail_key);
      throw error;
    }
    if (route.location) this.locate(response, route, value);
    const answer: StoredResponse = { status: response.statusCode, headers: answerHeaders(response, value), body: serialize(value) };
    if (storedAtCommit && sameAnswer(storedAtCommit, answer)) return value;
    if (storedAtCommit) this.logger.error({ trace_id: request.traceId }, 'the answer stored with the commit is not the one sent: the route is not answersWithResult; storing the sent one');
    await this.settle(request, claim, answer, undefined, route.sealed);
    return value;
  }

  /**
   * The answer the request will send if its handler returns `result` unchanged, as settle would
   * store it; undefined when it could not be stored so (too large to replay).
   */
  private answerAtCommit(response: Response, route: IdempotentRoute, result: unknown): StoredResponse | undefined {
    const body = serialize(result);
    if (!isStoredResponse(response.statusCode) || !isReplayableBody(body)) return undefined;
    return { status: response.statusCode, headers: answerHeaders(response, result, this.locationOf(route, result)), body };
  }

  /**
   * Stores, marks as too large, or releases the claim, once more at once after a transient fault
   * (the connection that failed the request may fail this too; the pool then hands out another).
   * Still failing so, it is tried again in the background, for as long as the claim may be
   * waited for (STALE_CLAIM_SECONDS), while the request's own answer goes out: an outage of a few
   * seconds right after the commit had cost that answer its replay for 24 hours (a crash review
   * cut PostgreSQL for 15 s; two keys answered 201 were then 409 for every repeat). Any other
   * failure is logged, not answered: the request has run, and its own answer is the truthful one.
   * The claim then stays in progress until it is stale and a repeat takes it over.
   */
  private async settle(request: ApiRequest, claim: IdempotencyClaim, answer: StoredResponse, detailKey?: string, sealed = false): Promise<void> {
    const store = async () => {
      if (!isStoredResponse(answer.status, detailKey)) await this.store.release(claim);
      else if (!isReplayableBody(answer.body)) {
        await this.store.completeTooLarge(claim, answer.status);
      } else await this.store.complete(claim, answer, sealed);
    };
    const failed = (error: unknown) => this.logger.error({ err: error, trace_id: request.traceId }, 'could not store the idempotent response');
    try {
      await store().catch((error: unknown) => (isTransientFault(error) ? store() : Promise.reject(error)));
    } catch (error) {
      if (!isTransientFault(error)) return failed(error);
      this.logger.warn({ cause: (error as Error).message, trace_id: request.traceId }, 'could not store the idempotent response yet; trying again in the background');
      // The stale limit runs from the commit mark, set just before: past it, a repeat is answered without this answer.
      const waits = storeRetryWaits(RETRY_FIRST_WAIT_MS, STALE_CLAIM_SECONDS * 1000);
      const retry = (attempt: number) => {
        const timer = setTimeout(() => {
          this.retrying.delete(timer);
          store().catch((again: unknown) => (isTransientFault(again) && attempt + 1 < waits.length ? retry(attempt + 1) : failed(again)));
        }, waits[attempt]).unref();
        this.retrying.add(timer);
      };
      retry(0);
    }
  }

  /** Answers still waiting to be stored are given up: their repeats are told the request ran (replay_unavailable). */
  onApplicationShutdown(): void {
    if (this.retrying.size === 0) return;
    for (const timer of this.retrying) clearTimeout(timer);
    this.logger.warn({ answers: this.retrying.size }, 'idempotent answers not stored before shutdown: their repeats are told the request ran');
    this.retrying.clear();
  }
}

/** The key of the request's one Idempotency-Key header, else 422 `IdempotencyKeyInvalid`. */
function assertOneValidKey(request: ApiRequest, key: string | string[]): asserts key is string {
  // Node joins repeated headers into one value ("a, b"), itself a valid key: two keys are ambiguous, so neither is used.
  // (Only a value with ", " can be two; headersDistinct builds every header's list, so it is read only then.)
  if (typeof key === 'string' && key.includes(', ') && request.headersDistinct[IDEMPOTENCY_KEY_HEADER.toLowerCase()]!.length > 1) {
    throw new DomainException('IdempotencyKeyInvalid', 'Send exactly one Idempotency-Key header.', { field: IDEMPOTENCY_KEY_HEADER });
  }
  if (typeof key !== 'string' || !isValidIdempotencyKey(key)) {
    throw new DomainException('IdempotencyKeyInvalid', 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.', {
      field: IDEMPOTENCY_KEY_HEADER,
    });
  }
}

/** The body text Nest's express adapter sends for a handler's value (JSON for objects, as-is otherwise). */
function serialize(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** `location`: the answer's Location, when it is not yet set on the response. */
function answerHeaders(response: Response, value: unknown, location?: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const header = name === 'location' && location !== undefined ? location : response.getHeader(name);
    if (header !== undefined) headers[name] = Array.isArray(header) ? header.join(', ') : String(header);
  }
  if (headers['content-type'] === undefined && value !== undefined && value !== null) {
    headers['content-type'] = typeof value === 'object' ? 'application/json' : 'text/html';
  }
  return headers;
}

function sameAnswer(a: StoredResponse, b: StoredResponse): boolean {
  const names = Object.keys(a.headers);
  return (
    a.status === b.status &&
    a.body === b.body &&
    names.length === Object.keys(b.headers).length &&
    names.every((name) => a.headers[name] === b.headers[name])
  );
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/**
 * The resource a request names, whatever the spelling: its route with each path value decoded
 * as the route reads it, then a UUID in lower case and any other value percent-encoded again (one
 * spelling per value). `/v1/invoices/%39…` and an upper-case id name the same invoice, so a retry
 * spelling it differently is the same request (spec 8), not a second run that overwrote another
 * client's change and sent a second event. Encoded, no value holds the NUL a decoded `%00` is,
 * which PostgreSQL's text refuses: the claim would fail with a 500 before the route's 422.
 */
function canonicalPath(request: ApiRequest): string {
  const route = routePattern(request);
  if (route === null) return request.path.replace(/(.)\/+$/, '$1');
  return route.replace(/:(\w+)/g, (_, name: string) => {
    const value = String(request.params[name]);
    return isUuid(value) ? value.toLowerCase() : encodeURIComponent(value);
  });
}
