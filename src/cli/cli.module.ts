import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '../platform/config/app-config.js';
import { ConfigModule } from '../platform/config/config.module.js';
import { PlatformModule } from '../platform/platform.module.js';
import { TOOL_SOURCES, type ToolSources } from '../mcp/tool-names.js';
import { FEATURE_MODULES, loadAreaSummaries, READ_RESOURCES, RESOURCE_DTOS } from '../app/features.js';

/**
 * The admin CLI's application context: the platform, the feature modules' services, no HTTP;
 * and the registry the agent-tool server's tools come from, so `mcp-token:create` grants only tools that exist.
 */
@Module({})
export class CliModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [ConfigModule.forRoot(config), PlatformModule.forRoot(RESOURCE_DTOS), ...FEATURE_MODULES],
      providers: [{ provide: TOOL_SOURCES, useFactory: async (): Promise<ToolSources> => ({ resources: READ_RESOURCES, summaries: await loadAreaSummaries() }) }],
    };
  }
}
