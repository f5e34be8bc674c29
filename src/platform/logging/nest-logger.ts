import { Logger, type LoggerService } from '@nestjs/common';

/**
 * Nest's logger is one per process: every `new Logger(context)` writes to what the last
 * `useLogger` or NestFactory `logger` option set. An extra application made with
 * `logger: false` would set nothing for good, and every such line after it, the delivery
 * worker's errors among them, would go nowhere.
 */
class NestLogger extends Logger {
  static current(): LoggerService | undefined {
    return this.staticInstanceRef;
  }
}

/** Where Nest's lines about starting an application come from: its start-up and the preview-mode banner. */
const START_UP_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'NestApplicationContext']);

/** The process's Nest logger, less an extra application's lines about itself, which would tell operators that an application started. */
class WithoutStartUpLines implements LoggerService {
  constructor(readonly inner: LoggerService) {}

  log(message: unknown, ...params: unknown[]): void {
    if (!START_UP_CONTEXTS.has(params.at(-1) as string)) this.inner.log(message, ...params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    if (!START_UP_CONTEXTS.has(params.at(-1) as string)) this.inner.warn(message, ...params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.inner.error(message, ...params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.inner.debug?.(message, ...params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.inner.verbose?.(message, ...params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.inner.fatal?.(message, ...params);
  }
}

/**
 * Makes an extra Nest application inside a running process (`create` gets the `logger` option
 * to pass): the process's logger stays in place, and the application's start-up lines are left
 * out. Another such application may be in the making at the same time.
 */
export async function quietNestApplication<T>(create: (logger: LoggerService | false) => Promise<T>): Promise<T> {
  const current = NestLogger.current();
  const processLogger = current instanceof WithoutStartUpLines ? current.inner : current;
  try {
    return await create(processLogger ? new WithoutStartUpLines(processLogger) : false);
  } finally {
    if (processLogger) Logger.overrideLogger(processLogger);
  }
}
