import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { grants, type Scope } from '../catalog/scopes.js';
import { DomainException } from '../errors/domain.exception.js';
import type { ApiRequest } from './auth-context.js';
import { ApiKeysService } from './api-keys.service.js';
import { PUBLIC_METADATA, SCOPES_METADATA } from './require-scopes.decorator.js';

/**
 * Global guard, deny by default: a route is reachable only if it is `@Public()` or declares
 * `@RequireScopes(...)` and the key holds every scope listed.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(ApiKeysService) private readonly apiKeys: ApiKeysService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_METADATA, targets)) return true;

    const request = context.switchToHttp().getRequest<ApiRequest>();
    const required = this.reflector.getAllAndOverride<Scope[] | undefined>(SCOPES_METADATA, targets);
    request.auth = await this.apiKeys.authenticate(request.headers.authorization);
    if (!required) throw new DomainException('MissingScope', 'This route declares no scope and is closed.');

    const missing = required.filter((scope) => !grants(request.auth!.scopes, scope));
    if (missing.length > 0) {
      throw new DomainException('MissingScope', `The API key needs the scope ${missing.join(', ')}.`, {
        missing_scope: missing[0],
        ...(missing.length > 1 ? { missing_scopes: missing } : {}),
      });
    }
    return true;
  }
}
