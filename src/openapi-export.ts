import 'reflect-metadata';
import { writeFile } from 'node:fs/promises';
import { NestFactory } from '@nestjs/core';
import { ApiModule } from './app/api.module.js';
import { FEATURE_TAGS } from './app/features.js';
import { ConfigError, loadConfig } from './platform/config/app-config.js';
import { buildOpenApiDocument } from './platform/openapi/openapi-document.js';

/**
 * `node dist/openapi-export.js <file>`: writes the OpenAPI document the API serves (same
 * configuration, so `PUBLIC_BASE_URL` and `ERRORS_BASE_URL` matter) to <file>. The application is
 * created in preview mode: modules are resolved but no provider runs, so no database or Redis is
 * needed.
 */
async function main(): Promise<number> {
  const [target, ...rest] = process.argv.slice(2);
  if (!target || rest.length > 0) {
    process.stderr.write('usage: node dist/openapi-export.js <output-file>\n');
    return 2;
  }
  try {
    const config = loadConfig();
    const app = await NestFactory.create(ApiModule.register(config), { preview: true, logger: false, abortOnError: false });
    const document = buildOpenApiDocument(app, config, FEATURE_TAGS);
    await app.close();
    await writeFile(target, `${JSON.stringify(document, null, 2)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`${error instanceof ConfigError ? error.message : `export failed: ${error instanceof Error ? error.message : String(error)}`}\n`);
    return 1;
  }
}

process.exitCode = await main();
