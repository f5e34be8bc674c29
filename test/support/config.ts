import { type AppConfig, loadConfig } from '../../src/platform/config/app-config.js';

/** The configuration of this test run (database and Redis prefix from global setup) plus overrides. */
export function testConfig(overrides: Record<string, string> = {}): AppConfig {
  return loadConfig({ ...process.env, LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'https://api.test.local', ...overrides });
}
