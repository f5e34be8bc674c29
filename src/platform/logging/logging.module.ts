import { type DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import type { AppConfig } from '../config/app-config.js';
import { createLogger, PinoNestLogger } from './logger.js';

/** The process's pino logger; the HTTP pipeline writes the request lines through it. */
export const PINO_LOGGER = Symbol('PINO_LOGGER');
export type { Logger };

/** Structured JSON logs: one pino logger per process, also behind Nest's logger (`PinoNestLogger`). */
@Module({})
export class LoggingModule {
  static forRoot(config: AppConfig): DynamicModule {
    const logger = createLogger(config);
    return {
      module: LoggingModule,
      global: true,
      providers: [
        { provide: PINO_LOGGER, useValue: logger },
        { provide: PinoNestLogger, useValue: new PinoNestLogger(logger) },
      ],
      exports: [PINO_LOGGER, PinoNestLogger],
    };
  }
}
