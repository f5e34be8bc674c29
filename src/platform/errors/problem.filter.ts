import { type ArgumentsHost, Catch, type ExceptionFilter, Inject, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '../config/app-config.js';
import { sendProblem } from '../http/http-pipeline.js';
import { toProblem } from './problem.js';

/** The one place where errors thrown inside Nest become application/problem+json. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger(ProblemFilter.name);

  constructor(@Inject(AppConfig) private readonly config: AppConfig) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const { cause } = toProblem(exception, this.config.errorsBaseUrl);
    if (cause !== undefined) this.logger.error({ err: cause }, 'unhandled error');
    if (response.headersSent) return;
    sendProblem(response, exception, this.config);
  }
}
