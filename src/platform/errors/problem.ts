import { HttpException, HttpStatus } from '@nestjs/common';
import { Errors, type ErrorDefinition } from '../catalog/errors.js';
import { DomainException, type ProblemExtras } from './domain.exception.js';
import { isTransientFault } from './transient-faults.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Seconds a client is asked to wait after a 503 for a backing service that did not answer in time. */
export const TRANSIENT_RETRY_AFTER_S = 2;

export interface ProblemBody extends ProblemExtras {
  type: string;
  title: string;
  status: number;
  detail: string;
  detail_key: string;
}

export interface Problem {
  body: ProblemBody;
  headers: Record<string, string>;
  /** The original error, kept for logging of unexpected failures only. */
  cause?: unknown;
}

function build(definition: ErrorDefinition, errorsBaseUrl: string, detail: string, extras: ProblemExtras = {}): ProblemBody {
  const body: ProblemBody = {
    type: `${errorsBaseUrl}/${definition.type}`,
    title: definition.title,
    status: definition.status,
    detail,
    detail_key: definition.detailKey,
  };
  if (definition.code !== undefined) body.code = definition.code;
  return Object.assign(body, Object.fromEntries(Object.entries(extras).filter(([, value]) => value !== undefined)));
}

interface ExpressError {
  type?: string;
  status?: number;
  statusCode?: number;
  expose?: boolean;
  /** zlib's, when a body is not in the Content-Encoding it names (`Z_DATA_ERROR`, …). */
  code?: string;
}

/**
 * Maps anything thrown while serving a request to a problem. Domain exceptions carry their
 * catalogue entry; framework and body-parser errors are mapped by status; anything else is a
 * masked 500 whose message never reaches the client.
 */
export function toProblem(exception: unknown, errorsBaseUrl: string): Problem {
  if (exception instanceof DomainException) {
    return { body: build(exception.definition, errorsBaseUrl, exception.message, exception.extras), headers: exception.headers };
  }
  const parserError = exception as ExpressError;
  if (parserError?.type === 'entity.parse.failed') {
    return { body: build(Errors.MalformedJson, errorsBaseUrl, 'The request body could not be parsed as JSON.'), headers: {} };
  }
  if (parserError?.type === 'entity.too.large') {
    return { body: build(Errors.PayloadTooLarge, errorsBaseUrl, 'The request body exceeds the size limit.'), headers: {} };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const byStatus: Partial<Record<number, ErrorDefinition>> = {
      [HttpStatus.NOT_FOUND]: Errors.RouteNotFound,
      [HttpStatus.METHOD_NOT_ALLOWED]: Errors.MethodNotAllowed,
      [HttpStatus.PAYLOAD_TOO_LARGE]: Errors.PayloadTooLarge,
      [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: Errors.UnsupportedMediaType,
      [HttpStatus.UNPROCESSABLE_ENTITY]: Errors.InvalidInput,
      [HttpStatus.BAD_REQUEST]: Errors.InvalidInput,
    };
    // The router's own 400 for a path it cannot percent-decode (`/v1/invoices/%FF`), which Nest
    // hands on as a BadRequestException: a malformed id, as `zz` would be.
    if (status === HttpStatus.BAD_REQUEST && exception.message.startsWith('Failed to decode param')) {
      return { body: build(Errors.InvalidInput, errorsBaseUrl, 'The path is not valid percent-encoded UTF-8.', { field: 'path', code: 'invalid_format' }), headers: {} };
    }
    const definition = byStatus[status];
    if (definition) {
      const detail = status === HttpStatus.NOT_FOUND ? 'No route matches this method and path.' : definition.title;
      return { body: build(definition, errorsBaseUrl, detail), headers: {} };
    }
  }
  const status = parserError?.status ?? parserError?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500 && parserError.expose) {
    // body-parser's 415s: a charset or content encoding it cannot decode.
    if (status === HttpStatus.UNSUPPORTED_MEDIA_TYPE) {
      const field = parserError.type === 'encoding.unsupported' ? 'Content-Encoding' : 'Content-Type';
      return { body: build(Errors.UnsupportedMediaType, errorsBaseUrl, 'The body charset or content encoding is not supported; send UTF-8 JSON.', { field }), headers: {} };
    }
    return { body: build(Errors.InvalidInput, errorsBaseUrl, unreadableBody(parserError)), headers: {} };
  }
  if (isTransientFault(exception)) {
    return {
      body: build(Errors.ServiceUnavailable, errorsBaseUrl, 'The database or the queue did not answer in time. Repeat the request shortly.'),
      headers: { 'Retry-After': String(TRANSIENT_RETRY_AFTER_S) },
      cause: exception,
    };
  }
  return {
    body: build(Errors.Internal, errorsBaseUrl, 'An unexpected error occurred. Quote the x-trace-id header when reporting it.'),
    headers: {},
    cause: exception,
  };
}

/** Why body-parser could not read a body, in words a client can act on. */
function unreadableBody(error: ExpressError): string {
  // zlib's codes (gzip, deflate) start Z_, its brotli decoder's ERR__ERROR_.
  if (error.code?.startsWith('Z_') || error.code?.startsWith('ERR__ERROR_')) return 'The request body could not be decompressed: it is not valid data in the Content-Encoding it names (gzip, deflate or br).';
  if (error.type === 'request.size.invalid') return 'The request body is not as long as its Content-Length says.';
  return 'The request could not be read.';
}
