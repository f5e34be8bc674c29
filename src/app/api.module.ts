import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { ApiKeyAuthenticator } from '../platform/auth/api-key-authenticator.service.js';
import { AuthGuard } from '../platform/auth/auth.guard.js';
import { AppConfig } from '../platform/config/app-config.js';
import { ConfigModule } from '../platform/config/config.module.js';
import { ProblemFilter } from '../platform/http/problem.filter.js';
import { HealthModule } from '../platform/health/health.module.js';
import { LoggingModule } from '../platform/logging/logging.module.js';
import { MetricsController } from '../platform/metrics/metrics.controller.js';
import { OpenApiModule } from '../platform/openapi/openapi.module.js';
import { PlatformModule } from '../platform/platform.module.js';
import { RateLimitModule } from '../platform/rate-limit/rate-limit.module.js';
import { ReadResourcesModule } from '../platform/resources/read-resources.module.js';
import { FEATURE_MODULES, READ_RESOURCES, RESOURCE_DTOS } from './features.js';

/**
 * The REST API role: platform, feature modules, the global guard (authentication with the rate
 * limits), the problem filter, and `GET /metrics` unless METRICS_PORT serves them elsewhere.
 */
@Module({})
export class ApiModule {
  static register(config: AppConfig, extraModules: Type[] = []): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config),
        PlatformModule.forRoot(RESOURCE_DTOS, { checkSealedSecrets: true }),
        RateLimitModule,
        OpenApiModule,
        HealthModule,
        ...FEATURE_MODULES,
        ReadResourcesModule.register(READ_RESOURCES, { routes: true }),
        ...extraModules,
      ],
      controllers: config.METRICS_PORT === undefined ? [MetricsController] : [],
      providers: [
        ApiKeyAuthenticator,
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: ProblemFilter },
      ],
    };
  }
}
