import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { AppConfig } from '../platform/config/app-config.js';
import { ConfigModule } from '../platform/config/config.module.js';
import { LoggingModule } from '../platform/logging/logging.module.js';
import { PlatformModule } from '../platform/platform.module.js';
import { RESOURCE_DTOS } from './features.js';
import { JobWorkerModule } from '../platform/queue/job-worker.module.js';

/**
 * The worker role: the platform, the features' worker modules (whose providers hold the
 * `@OnJob` handlers, the outbox relay and the delivery loop) and the BullMQ workers. No HTTP server, no REST modules.
 */
@Module({})
export class WorkerModule {
  static register(config: AppConfig, workerModules: Type[], extraModules: Type[] = []): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config),
        // A process that also runs the API has checked them already.
        PlatformModule.forRoot(RESOURCE_DTOS, { checkSealedSecrets: !config.hasRole('api') }),
        ...workerModules,
        ...extraModules,
        JobWorkerModule,
      ],
    };
  }
}
