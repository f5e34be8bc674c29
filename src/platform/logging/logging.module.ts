import { type DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { pinoHttp } from 'pino-http';
import type { AppConfig } from '../config/app-config.js';
import { createLogger, httpLoggerOptions } from './logger.js';

/** The pino-http middleware, mounted by the HTTP pipeline right after the trace id is set. */
export const HTTP_LOGGER = Symbol('HTTP_LOGGER');
export type HttpLogger = ReturnType<typeof pinoHttp>;

/**
 * Structured JSON logs. The HTTP pipeline mounts the request logger itself (`useExisting`), in
 * front of version checks and body parsing, so requests refused there are logged too; Nest's
 * logger then writes through the same pino instance, bound to the request's trace id.
 */
@Module({})
export class LoggingModule {
  static forRoot(config: AppConfig): DynamicModule {
    const options = httpLoggerOptions(createLogger(config));
    return {
      module: LoggingModule,
      global: true,
      imports: [LoggerModule.forRoot({ pinoHttp: options, useExisting: true })],
      providers: [{ provide: HTTP_LOGGER, useValue: pinoHttp(options) }],
      exports: [HTTP_LOGGER],
    };
  }
}
