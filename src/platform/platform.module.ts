import { type DynamicModule, Global, Module, type Type } from '@nestjs/common';
import { AccessService } from './access/access.service.js';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKey } from './auth/api-key.entity.js';
import { ApiKeyHooks } from './auth/api-key-hooks.js';
import { ApiKeysService } from './auth/api-keys.service.js';
import { AppConfig } from './config/app-config.js';
import { CryptoModule } from './crypto/crypto.module.js';
import { SealedSecretsCheck } from './crypto/sealed-secrets-check.js';
import { dataSourceOptions, unansweredQueryMs } from './database/database.js';
import { DroppingClient } from './database/dropping-client.js';
import { EVENT_DATA_MODELS, EventDataCheck } from './events/event-data-check.js';
import { EventPublisher } from './events/event-publisher.service.js';
import { OutboxEvent } from './events/event.entity.js';
import { IdempotencyModule } from './idempotency/idempotency.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { Paginator } from './pagination/paginator.service.js';
import { QueueModule } from './queue/queue.module.js';
import { TenantData } from './tenancy/tenant-data.js';
import { Tenant } from './tenancy/tenant.entity.js';
import { TenantsService } from './tenancy/tenants.service.js';
import { User } from './tenancy/user.entity.js';

/**
 * What every role and feature module stands on: the database connection, companies and keys,
 * the tenant-bound data access (TenantData), the paginator, the event outbox, the job queues,
 * encryption at rest, metrics and idempotency. Global so feature modules
 * need not import it; each role imports it with the registry's DTOs (EVENT_DATA_MODELS).
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => {
        const options = dataSourceOptions(config.DATABASE_URL);
        // query_timeout: the client's own bound, for a server that stops answering on an open
        // connection (a partition, a frozen host), where statement_timeout never fires.
        const timeouts = {
          statement_timeout: config.DATABASE_STATEMENT_TIMEOUT_MS,
          connectionTimeoutMillis: config.DATABASE_STATEMENT_TIMEOUT_MS,
          query_timeout: unansweredQueryMs(config),
        };
        // retryAttempts 1: a start the database refuses fails at once with the reason, as the
        // migration's connection just before does, instead of retrying for 27 s (10 × 3 s).
        return { ...options, extra: { ...options.extra, ...timeouts, Client: DroppingClient }, autoLoadEntities: true, retryAttempts: 1 };
      },
    }),
    TypeOrmModule.forFeature([Tenant, User, ApiKey, OutboxEvent]),
    QueueModule,
    CryptoModule,
    MetricsModule,
    IdempotencyModule,
  ],
  providers: [AccessService, ApiKeysService, ApiKeyHooks, TenantsService, TenantData, Paginator, EventDataCheck, EventPublisher],
  exports: [AccessService, ApiKeysService, ApiKeyHooks, TenantsService, TenantData, Paginator, EventDataCheck, EventPublisher, QueueModule, CryptoModule, MetricsModule, IdempotencyModule],
})
export class PlatformModule {
  /**
   * `eventDataModels`: the response DTOs event data may follow (the registry's item DTOs), for the
   * publisher's schema check. `checkSealedSecrets`: the role opens stored secrets, so its start
   * is refused when SECRETS_KEY opens none of them (SealedSecretsCheck); once per process.
   */
  static forRoot(eventDataModels: readonly Type[], { checkSealedSecrets = false } = {}): DynamicModule {
    return {
      module: PlatformModule,
      providers: [{ provide: EVENT_DATA_MODELS, useValue: eventDataModels }, ...(checkSealedSecrets ? [SealedSecretsCheck] : [])],
      exports: [EVENT_DATA_MODELS],
    };
  }
}
