import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AuthGuard } from '../platform/auth/auth.guard.js';
import { AppConfig } from '../platform/config/app-config.js';
import { ConfigModule } from '../platform/config/config.module.js';
import { ProblemFilter } from '../platform/errors/problem.filter.js';
import { HealthModule } from '../platform/health/health.module.js';
import { LoggingModule } from '../platform/logging/logging.module.js';
import { OpenApiModule } from '../platform/openapi/openapi.module.js';
import { PlatformModule } from '../platform/platform.module.js';
import { RateLimitGuard } from '../platform/rate-limit/rate-limit.guard.js';
import { RateLimitModule } from '../platform/rate-limit/rate-limit.module.js';
import { FEATURE_MODULES } from './feature-modules.js';

/**
 * The REST API role: platform, feature modules, and the global guards (authentication, then
 * rate limits: global guards run in the order they are listed) and the problem filter.
 */
@Module({})
export class ApiModule {
  static register(config: AppConfig, extraModules: Type[] = []): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config),
        PlatformModule,
        RateLimitModule,
        OpenApiModule,
        HealthModule,
        ...FEATURE_MODULES,
        ...extraModules,
      ],
      providers: [
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_FILTER, useClass: ProblemFilter },
      ],
    };
  }
}
