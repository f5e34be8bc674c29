import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { AppConfig } from '../platform/config/app-config.js';
import { ConfigModule } from '../platform/config/config.module.js';
import { LoggingModule } from '../platform/logging/logging.module.js';
import { PlatformModule } from '../platform/platform.module.js';
import { JobWorkerModule } from '../platform/queue/job-worker.module.js';
import { WORKER_MODULES } from './worker-modules.js';

/**
 * The worker role: the platform, the worker modules (whose providers hold the `@OnJob`
 * handlers and the outbox relay) and the BullMQ workers. No HTTP server, no REST modules.
 */
@Module({})
export class WorkerModule {
  static register(config: AppConfig, extraModules: Type[] = []): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config),
        PlatformModule,
        ...WORKER_MODULES,
        ...extraModules,
        JobWorkerModule,
      ],
    };
  }
}
