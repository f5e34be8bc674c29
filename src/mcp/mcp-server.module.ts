import { type DynamicModule, Module } from '@nestjs/common';
import { RateLimitModule } from '../platform/rate-limit/rate-limit.module.js';
import { ReadResourcesModule } from '../platform/resources/read-resources.module.js';
import { McpHttpService } from './mcp-http.service.js';
import { McpModule } from './mcp.module.js';
import { ToolServer } from './tool-server.js';
import { ToolCatalog } from './tools/tool-catalog.js';
import { TOOL_SOURCES, type ToolSources } from './tool-names.js';

/** The agent-tool server: tools derived from the resource registry the composition passes in. */
@Module({})
export class McpServerModule {
  static register(sources: ToolSources): DynamicModule {
    return {
      module: McpServerModule,
      imports: [McpModule, RateLimitModule, ReadResourcesModule.register(sources.resources, { routes: false })],
      providers: [{ provide: TOOL_SOURCES, useValue: sources }, ToolCatalog, ToolServer, McpHttpService],
      exports: [McpHttpService],
    };
  }
}
