import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { hotQuery } from '../database/hot-query.js';
import { PgListener } from '../database/pg-listener.js';
import { DomainException } from '../errors/domain.exception.js';
import { apiKeyState } from './api-key.entity.js';
import { type ParsedApiKey, secretMatchesStored } from './api-key-token.js';
import { AuthCache, type KeyRecord } from './auth-cache.js';
import { AUTH_ACKS_CHANNEL, AUTH_CHANGES_CHANNEL, AUTH_LISTENER_APPLICATION } from '../auth-changes/auth-changes.js';
import type { AuthContext } from './auth-context.js';
import { invalidToken } from './bearer-credentials.js';

/** The safety net: a cached key is read again after this long even if no notification came. */
const AUTH_CACHE_TTL_MS = 10_000;

// Named as KeyRecord's fields, so a row is the record.
const KEY_SQL = `
  SELECT k.id, k.tenant_id AS "tenantId", t.slug AS "tenantSlug", t.active AS "tenantActive", k.secret_hash AS "secretHash",
         k.scopes, k.expires_at AS "expiresAt", k.revoked_at AS "revokedAt", k.deleted_at AS "deletedAt", k.created_by_user_id AS "userId"
    FROM api_keys k
    JOIN tenants t ON t.id = k.tenant_id
   WHERE k.prefix = $1`;

/**
 * Resolves an API key to its caller without a database round trip on the hot path: keys and
 * their companies are cached in process memory, and every process drops its copy when a key or
 * company changes, through PostgreSQL LISTEN/NOTIFY (triggers on `api_keys` and `tenants`
 * notify `auth_changes` at commit). Having dropped it, the process confirms on `auth_change_acks`,
 * and the change waits for every process's confirmation before it returns
 * (`afterEveryProcessDropped`), so it holds on the next request everywhere. A cached key still
 * lives at most AUTH_CACHE_TTL_MS. While
 * the listening connection is down the cache is neither read nor filled, so a missed
 * notification can never keep a revoked key alive; it is emptied when listening resumes.
 */
@Injectable()
export class ApiKeyAuthenticator implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ApiKeyAuthenticator.name);
  private readonly cache = new AuthCache(AUTH_CACHE_TTL_MS);
  private readonly listener: PgListener;
  private listening = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(AppConfig) config: AppConfig,
  ) {
    this.listener = new PgListener(
      config.DATABASE_URL,
      AUTH_CHANGES_CHANNEL,
      {
        notification: (payload, answer) => {
          this.cache.invalidate(payload);
          answer('SELECT pg_notify($1, $2)', [AUTH_ACKS_CHANNEL, payload]).catch(() => undefined);
        },
        listening: () => {
          this.cache.clear();
          this.listening = true;
        },
        lost: () => {
          this.listening = false;
          this.cache.clear();
        },
        warn: (reason) => this.logger.warn(`not listening for key changes, keys are read from the database each time: ${reason}`),
      },
      // Named only once listening: a change waits for every connection of this name to confirm.
      (query) => query(`SET application_name = '${AUTH_LISTENER_APPLICATION}'`),
    );
  }

  async onModuleInit(): Promise<void> {
    await this.listener.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.listening = false;
    await this.listener.stop();
  }

  /**
   * The caller of a well-formed key. Every failure is the same 401 so a caller cannot tell a
   * wrong secret from an unknown prefix; a key of an inactive company is a 404.
   */
  async authenticate(credentials: ParsedApiKey): Promise<AuthContext> {
    return callerOf(credentials, await this.find(credentials.prefix));
  }

  /**
   * Changes with every key or company change this process has heard of: a caller read before
   * another generation may be out of date (AuthGuard reads the key again after a wait).
   */
  get generation(): number {
    return this.cache.generation;
  }

  /**
   * The same for a key this process holds in its cache, checked without waiting for anything;
   * undefined when the key is not cached (authenticate reads it).
   */
  cachedCaller(credentials: ParsedApiKey): AuthContext | undefined {
    const key = this.listening ? this.cache.get(credentials.prefix) : undefined;
    return key === undefined ? undefined : callerOf(credentials, key ?? undefined);
  }

  private async find(prefix: string): Promise<KeyRecord | undefined> {
    const cached = this.listening ? this.cache.get(prefix) : undefined;
    if (cached !== undefined) return cached ?? undefined;
    const generation = this.cache.generation;
    const [key] = await hotQuery<KeyRecord>(this.dataSource, 'api-key-by-prefix', KEY_SQL, [prefix]);
    // A prefix that names no key is remembered as such (AuthCache), as a key is.
    if (this.listening) this.cache.set(prefix, key ?? null, generation);
    return key;
  }
}

function callerOf(credentials: ParsedApiKey, key: KeyRecord | undefined): AuthContext {
  if (!secretMatchesStored(credentials.secret, key?.secretHash) || !key || apiKeyState(key) !== 'active') throw invalidToken('The API key is invalid, revoked, expired or deleted.');
  if (!key.tenantActive) throw new DomainException('TenantNotFound', 'The company of this API key is no longer active.');
  return { tenantId: key.tenantId, tenantSlug: key.tenantSlug, apiKeyId: key.id, scopes: key.scopes, userId: key.userId };
}
