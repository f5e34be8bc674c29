import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '../platform/config/app-config.js';
import { ConfigModule } from '../platform/config/config.module.js';
import { PlatformModule } from '../platform/platform.module.js';
import { FEATURE_MODULES, RESOURCE_DTOS } from '../app/features.js';

/** The admin CLI's application context: the platform, the feature modules' services, no HTTP. */
@Module({})
export class CliModule {
  static register(config: AppConfig): DynamicModule {
    return { module: CliModule, imports: [ConfigModule.forRoot(config), PlatformModule.forRoot(RESOURCE_DTOS), ...FEATURE_MODULES] };
  }
}
