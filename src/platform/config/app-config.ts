import { plainToInstance, Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  validateSync,
} from 'class-validator';

export const APP_ROLES = ['api', 'mcp', 'worker'] as const;
export type AppRole = (typeof APP_ROLES)[number];

const list = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0)
    : value;
const int = ({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value);
const bool = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);
const intList = ({ value }: { value: unknown }) => {
  const items = list({ value });
  return Array.isArray(items) ? items.map((item) => int({ value: item })) : items;
};

const CIDR = /^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$|^[0-9a-fA-F:]+\/\d{1,3}$/;
const URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/**
 * The service's whole configuration, read once from the environment (operations.md plus the
 * project's own variables, documented in the README). A bad value stops the start and the
 * message names the variable.
 */
export class AppConfig {
  @IsString()
  @Matches(/^postgres(ql)?:\/\//)
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/integrations';

  @IsString()
  @Matches(/^rediss?:\/\//)
  REDIS_URL = 'redis://127.0.0.1:6379';

  /** Prefix of every Redis key (queues, rate limits), so several deployments or test runs can share one Redis. */
  @IsString()
  @Matches(/^[A-Za-z0-9_.:-]{1,64}$/)
  REDIS_PREFIX = 'oh';

  @Transform(int)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @Transform(int)
  @IsInt()
  @Min(0)
  @Max(65535)
  MCP_PORT = 3001;

  @Transform(list)
  @IsArray()
  @ArrayMinSize(1)
  @IsIn(APP_ROLES, { each: true })
  APP_ROLES: AppRole[] = ['api', 'mcp', 'worker'];

  @IsUrl(URL_OPTIONS)
  PUBLIC_BASE_URL = 'http://localhost:3000';

  @IsOptional()
  @IsUrl(URL_OPTIONS)
  ERRORS_BASE_URL?: string;

  @Transform(list)
  @IsArray()
  @Matches(CIDR, { each: true })
  WEBHOOK_ALLOWED_CIDRS: string[] = [];

  @Transform(bool)
  @IsBoolean()
  WEBHOOK_ALLOW_HTTP = false;

  @Transform(intList)
  @IsArray()
  @ArrayMinSize(7)
  @ArrayMaxSize(7)
  @IsInt({ each: true })
  @Min(0, { each: true })
  WEBHOOK_RETRY_SCHEDULE_MS: number[] = [5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000];

  @Transform(int)
  @IsInt()
  @Min(1)
  WEBHOOK_TIMEOUT_MS = 15000;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** General request limit per API key and second. */
  @Transform(int)
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_SECOND = 100;

  /** API versions that have been sunset: requesting one gives 410. */
  @Transform(list)
  @IsArray()
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { each: true })
  API_SUNSET_VERSIONS: string[] = [];

  /**
   * Key that signs pagination cursors. When unset, a random key is generated once per database
   * and shared by every process through the `platform_settings` table.
   */
  @IsOptional()
  @IsString()
  @Matches(/^.{32,}$/)
  CURSOR_SECRET?: string;

  get errorsBaseUrl(): string {
    return (this.ERRORS_BASE_URL ?? `${this.publicBaseUrl}/errors`).replace(/\/+$/, '');
  }

  get publicBaseUrl(): string {
    return this.PUBLIC_BASE_URL.replace(/\/+$/, '');
  }

  hasRole(role: AppRole): boolean {
    return this.APP_ROLES.includes(role);
  }
}

export class ConfigError extends Error {}

/** Reads and validates the configuration; unset or empty variables keep their defaults. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const defaults = new AppConfig();
  const present = Object.fromEntries(
    Object.keys(defaults)
      .concat('ERRORS_BASE_URL', 'CURSOR_SECRET')
      .filter((name) => env[name] !== undefined && env[name] !== '')
      .map((name) => [name, env[name]]),
  );
  const config = plainToInstance(AppConfig, present, { exposeDefaultValues: true });
  const errors = validateSync(config, { forbidUnknownValues: true });
  if (errors.length > 0) {
    const lines = errors.map((error) => `${error.property}: ${Object.values(error.constraints ?? {}).join('; ')}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return config;
}
