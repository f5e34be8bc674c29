import type { LoggerService } from '@nestjs/common';
import { type Bindings, type DestinationStream, type Level, type Logger, pino } from 'pino';
import type { AppConfig } from '../config/app-config.js';

/** Member names whose values are credentials, wherever they appear in a logged object. */
const SECRET_MEMBERS = ['key', 'secret', 'token', 'password', 'api_key', 'apiKey', 'access_token', 'secret_hash', 'secretHash', 'authorization'];

/** The redaction needs explicit depths; four levels cover the objects this service logs. */
const SECRET_DEPTHS = ['', '*.', '*.*.', '*.*.*.'];

const REDACTED_PATHS: readonly string[] = SECRET_DEPTHS.flatMap((depth) => SECRET_MEMBERS.map((member) => `${depth}${member}`));

export const REDACTED = '[Redacted]';

/**
 * Members of a failed statement's error that carry the values it ran with: TypeORM's
 * QueryFailedError keeps the bound `parameters` and copies its pg error's members, whose
 * `detail` (a unique violation's key), `where` and `internalQuery` may quote them too.
 */
const STATEMENT_DATA = ['parameters', 'detail', 'where', 'internalQuery'];
/** What the pg error under `driverError` may show: where it failed, not with what. */
const DRIVER_ERROR_MEMBERS = ['message', 'code', 'severity', 'routine', 'constraint', 'table', 'column', 'schema'];

/**
 * `err` as pino writes it, without the values a failed statement ran with: they are request data,
 * a webhook URL's secret query string or a person's name included. The statement's text stays.
 */
function serializeError(error: unknown): unknown {
  const serialized = pino.stdSerializers.err(error as Error) as unknown;
  if (typeof serialized !== 'object' || serialized === null) return serialized;
  const { driverError, ...rest } = serialized as Record<string, unknown>;
  for (const name of STATEMENT_DATA) delete rest[name];
  if (typeof driverError !== 'object' || driverError === null) return rest;
  const driver = driverError as Record<string, unknown>;
  return { ...rest, driverError: Object.fromEntries(DRIVER_ERROR_MEMBERS.filter((name) => driver[name] !== undefined).map((name) => [name, driver[name]])) };
}

/** Lines are gathered into writes of at least this many bytes... */
const LOG_WRITE_BYTES = 4096;
/** ...or written this long after they were logged, however few. */
const LOG_FLUSH_MS = 250;

let standardOutput: DestinationStream | undefined;

/**
 * Standard output, shared by every logger of the process (each role's module makes one), so that
 * their lines are gathered into one buffer and keep their order. Lines are written in chunks of
 * about LOG_WRITE_BYTES, on libuv's thread pool (pino's asynchronous destination), and at the
 * latest LOG_FLUSH_MS after they were logged. Pino's default destination wrote each line as soon
 * as the previous write ended: under steady traffic, a thread-pool hop and a system call per
 * request and per delivery attempt, about 45 µs of CPU a line on this project's development
 * machine (docs/benchmarks.md, "Log lines gathered into writes"). Pino writes what is left when
 * the process exits; a process killed outright (SIGKILL) loses at most its last LOG_FLUSH_MS of
 * lines.
 */
function sharedStandardOutput(): DestinationStream {
  if (standardOutput === undefined) {
    const stream = pino.destination({ dest: 1, minLength: LOG_WRITE_BYTES, sync: false });
    setInterval(() => {
      try {
        stream.flush();
      } catch {
        // Standard output is gone (a closed pipe): nothing can be written any more.
      }
    }, LOG_FLUSH_MS).unref();
    standardOutput = stream;
  }
  return standardOutput;
}

/**
 * The process's JSON logger: level from `LOG_LEVEL`, credential members redacted before
 * serialisation, to standard output unless `destination` is given.
 */
export function createLogger(config: Pick<AppConfig, 'LOG_LEVEL'>, destination: DestinationStream = sharedStandardOutput()): Logger {
  return pino(
    {
      level: config.LOG_LEVEL,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: [...REDACTED_PATHS], censor: REDACTED },
      serializers: { err: serializeError },
    },
    destination,
  );
}

/**
 * A logger for the lines written once per request or per delivery attempt, built only from named
 * fields (ids, statuses, durations), never from a request, response or caller's object: no
 * credential can reach them, so they skip the redaction. Its wildcard paths walk every line's
 * object, about 40 µs a line against 4 µs for all the rest of writing it (measured on this
 * project's development machine), a tenth of a delivery attempt's CPU.
 */
export function fieldLineLogger(logger: Logger, bindings: Bindings = {}): Logger {
  return logger.child(bindings, { redact: { paths: [] } });
}

/**
 * Nest's logger interface over pino, for Nest's own messages and `new Logger(context)` in the
 * code. Nest passes the context as the last argument; an object first argument is merged into
 * the line (`logger.error({ err, trace_id }, 'message')`).
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const context = params.length > 0 && typeof params.at(-1) === 'string' ? (params.at(-1) as string) : undefined;
    const rest = (context === undefined ? params : params.slice(0, -1)).filter((param) => param !== undefined);
    if (message instanceof Error) {
      this.logger[level]({ context, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.logger[level]({ context, ...message }, typeof rest[0] === 'string' ? rest[0] : undefined);
    } else {
      // Nest's error(message, stack, context): the stack is the middle argument.
      this.logger[level]({ context, ...(level === 'error' && typeof rest[0] === 'string' ? { stack: rest[0] } : {}) }, String(message));
    }
  }
}
