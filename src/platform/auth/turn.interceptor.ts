import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { finalize, type Observable } from 'rxjs';
import type { ApiRequest } from './auth-context.js';

/**
 * Gives back the company's turn the auth guard took once the handler is done, however it ends:
 * not when the answer's connection closes, since a handler whose client left (a short client
 * timeout) still holds its connection and its locks, and a response queued behind another on a
 * pipelined connection never closes.
 */
@Injectable()
export class TurnInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const end = context.switchToHttp().getRequest<ApiRequest>().endTurn;
    return end ? next.handle().pipe(finalize(end)) : next.handle();
  }
}
