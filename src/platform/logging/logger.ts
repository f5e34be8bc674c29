import type { IncomingMessage, ServerResponse } from 'node:http';
import { type DestinationStream, type Logger, pino } from 'pino';
import type { Options } from 'pino-http';
import type { ApiRequest } from '../auth/auth-context.js';
import type { AppConfig } from '../config/app-config.js';
import { traceIdFrom } from '../tracing/trace-id.js';

/** Member names whose values are credentials, wherever they appear in a log object. */
const SECRET_MEMBERS = ['key', 'secret', 'token', 'password', 'api_key', 'apiKey', 'secret_hash', 'secretHash', 'authorization'];

/** fast-redact needs explicit depths; four levels cover the objects this service logs. */
const SECRET_DEPTHS = ['', '*.', '*.*.', '*.*.*.'];

export const REDACTED_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  ...SECRET_DEPTHS.flatMap((depth) => SECRET_MEMBERS.map((member) => `${depth}${member}`)),
];

export const REDACTED = '[Redacted]';

/** The process's JSON logger: level from `LOG_LEVEL`, credentials redacted before serialisation. */
export function createLogger(config: Pick<AppConfig, 'LOG_LEVEL'>, destination?: DestinationStream): Logger {
  const options = {
    level: config.LOG_LEVEL,
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: [...REDACTED_PATHS], censor: REDACTED },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * pino-http options over `logger`: one line per request at `error` for 5xx, `info` otherwise.
 * The request's trace id (set by the trace middleware from `traceparent`, or fresh) is the
 * request id, bound as `trace_id` to that line and to everything logged while serving it.
 */
export function httpLoggerOptions(logger: Logger): Options<IncomingMessage, ServerResponse> {
  return {
    logger,
    genReqId: (request) => (request as ApiRequest).traceId ?? traceIdFrom(request.headers.traceparent),
    customAttributeKeys: { reqId: 'trace_id' },
    quietReqLogger: true,
    customLogLevel: (_request, response, error) => (error || response.statusCode >= 500 ? 'error' : 'info'),
  };
}
