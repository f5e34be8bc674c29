import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKey } from './auth/api-key.entity.js';
import { ApiKeysService } from './auth/api-keys.service.js';
import { AppConfig } from './config/app-config.js';
import { dataSourceOptions } from './database/database.js';
import { EventPublisher } from './events/event-publisher.service.js';
import { OutboxEvent } from './events/event.entity.js';
import { IdempotencyModule } from './idempotency/idempotency.module.js';
import { Paginator } from './pagination/paginator.service.js';
import { QueueModule } from './queue/queue.module.js';
import { Tenant } from './tenancy/tenant.entity.js';
import { TenantsService } from './tenancy/tenants.service.js';
import { User } from './tenancy/user.entity.js';

/**
 * What every role and feature module stands on: the database connection, companies and keys,
 * the paginator, the event outbox, the job queues and idempotency. Global so feature modules
 * need not import it.
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({ ...dataSourceOptions(config.DATABASE_URL), autoLoadEntities: true }),
    }),
    TypeOrmModule.forFeature([Tenant, User, ApiKey, OutboxEvent]),
    QueueModule,
    IdempotencyModule,
  ],
  providers: [ApiKeysService, TenantsService, Paginator, EventPublisher],
  exports: [ApiKeysService, TenantsService, Paginator, EventPublisher, QueueModule, IdempotencyModule],
})
export class PlatformModule {}
