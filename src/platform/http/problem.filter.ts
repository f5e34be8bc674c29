import { type ArgumentsHost, Catch, type ExceptionFilter, Inject, Logger, NotFoundException } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Application, Request, Response } from 'express';
import type { ApiRequest } from '../auth/auth-context.js';
import { AppConfig } from '../config/app-config.js';
import { allowedMethods } from './allowed-methods.js';
import { sendProblem } from './http-pipeline.js';
import { DomainException } from '../errors/domain.exception.js';
import { type Problem, toProblem } from '../errors/problem.js';
import { throttledWarning } from '../timing/throttled-warning.js';

/** The one place where errors thrown inside Nest become application/problem+json. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger(ProblemFilter.name);
  /**
   * A 503 is an outage of PostgreSQL or Redis, not a fault of this code: each request during one
   * wrote an error line with its stack (thousands a minute). Each request's own line still shows
   * its 503 under its trace id.
   */
  private readonly warnOfOutage = throttledWarning((message) => this.logger.warn(message));

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<ApiRequest>();
    const response = host.switchToHttp().getResponse<Response>();
    const error = exception instanceof NotFoundException ? this.routeNotFound(request, exception) : exception;
    const problem = this.concretePathRefusal(request, toProblem(error, this.config.errorsBaseUrl));
    // A call its route refuses (a bad since, an endpoint not active) did no replay: it spends
    // none of the replay limits, only the general one, like any request.
    if (problem.body.status >= 400 && problem.body.status < 500 && problem.body.status !== 429) request.refundRouteLimit?.();
    if (problem.body.status === 503 && problem.cause !== undefined) {
      this.warnOfOutage(`a backing service did not answer in time: ${(problem.cause as Error).message} (trace ${request.traceId})`);
    } else if (problem.cause !== undefined) this.logger.error({ err: problem.cause, trace_id: request.traceId }, 'unhandled error');
    if (response.headersSent) return;
    sendProblem(response, problem);
  }

  /**
   * A path parameter refused where the path is another route's concrete path (`GET
   * …/deliveries/replay_failed`, read by `…/deliveries/{id}`'s GET as an id): the path is that
   * route's, as OpenAPI matches paths, so the answer is its 405 rather than the id's 422.
   */
  private concretePathRefusal(request: Request, problem: Problem): Problem {
    const field = problem.body.field;
    if (problem.body.status !== 422 || typeof field !== 'string' || !Object.hasOwn(request.params ?? {}, field)) return problem;
    const allow = allowedMethods(this.adapterHost.httpAdapter.getInstance<Application>(), request.path);
    if (allow.length === 0 || allow.includes(request.method)) return problem;
    return toProblem(methodNotAllowed(request, allow), this.config.errorsBaseUrl);
  }

  /**
   * Nest answers an unmatched request with a NotFoundException. When the path exists under
   * other methods, the answer is a 405 naming them in `Allow` (RFC 9110 §15.5.6).
   */
  private routeNotFound(request: Request, exception: NotFoundException): unknown {
    const allow = allowedMethods(this.adapterHost.httpAdapter.getInstance<Application>(), request.path);
    if (allow.length === 0) return exception;
    return methodNotAllowed(request, allow);
  }
}

function methodNotAllowed(request: Request, allow: string[]): DomainException {
  return new DomainException('MethodNotAllowed', `${request.method} is not allowed on this path; use ${allow.join(', ')}.`, {}, { Allow: allow.join(', ') });
}
