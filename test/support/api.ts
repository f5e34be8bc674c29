import type { INestApplication, Type } from '@nestjs/common';
import request from 'supertest';
import { createApiApp } from '../../src/app/create-api-app.js';
import type { AppConfig } from '../../src/platform/config/app-config.js';
import { testConfig } from './config.js';

export interface TestApi {
  app: INestApplication;
  config: AppConfig;
  http: ReturnType<typeof request>;
  close: () => Promise<void>;
}

/** A real REST API application on the test database and Redis, reached over real HTTP. */
export async function startApi(options: { modules?: Type[]; env?: Record<string, string> } = {}): Promise<TestApi> {
  const config = testConfig(options.env);
  const app = await createApiApp(config, options.modules);
  await app.listen(0, '127.0.0.1');
  return { app, config, http: request(app.getHttpServer()), close: () => app.close() };
}
