import { createServer, type Server } from 'node:http';
import { type DynamicModule, type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpHttpService } from '../mcp/mcp-http.service.js';
import { McpServerModule } from '../mcp/mcp-server.module.js';
import type { AppConfig } from '../platform/config/app-config.js';
import { ConfigModule } from '../platform/config/config.module.js';
import { answerClientErrors, answerRecorder, httpServerOptions } from '../platform/http/http-pipeline.js';
import { dataSecurityHeaders } from '../platform/http/security-headers.js';
import { PinoNestLogger } from '../platform/logging/logger.js';
import { Metrics } from '../platform/metrics/metrics.service.js';
import { LoggingModule, PINO_LOGGER } from '../platform/logging/logging.module.js';
import { PlatformModule } from '../platform/platform.module.js';
import type { AreaSummary } from '../platform/resources/read-resource.js';
import { FEATURE_MODULES, READ_RESOURCES, RESOURCE_DTOS, loadAreaSummaries } from './features.js';

/** The mcp role: the platform, the feature modules' entities and the tool server over the registry. */
@Module({})
class McpRoleModule {
  static register(config: AppConfig, summaries: readonly AreaSummary[]): DynamicModule {
    return {
      module: McpRoleModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config),
        PlatformModule.forRoot(RESOURCE_DTOS),
        ...FEATURE_MODULES,
        McpServerModule.register({ resources: READ_RESOURCES, summaries }),
      ],
    };
  }
}

export interface McpServerHandle {
  context: INestApplicationContext;
  server: Server;
  close(): Promise<void>;
}

/** Builds the agent-tool server (not yet listening): a plain node:http server in front of the MCP SDK. */
export async function createMcpServer(config: AppConfig): Promise<McpServerHandle> {
  const context = await NestFactory.createApplicationContext(McpRoleModule.register(config, await loadAreaSummaries()), { bufferLogs: true, abortOnError: false });
  context.useLogger(context.get(PinoNestLogger));
  const http = context.get(McpHttpService);
  const headers = dataSecurityHeaders();
  const server = createServer(httpServerOptions(config), (request, response) => {
    for (const [name, value] of headers) response.setHeader(name, value);
    void http.handle(request, response);
  });
  answerClientErrors(server, config, answerRecorder(context.get(PINO_LOGGER), context.get(Metrics)));
  return {
    context,
    server,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await context.close();
    },
  };
}
