import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';

/**
 * The worker's database sessions (never the API's: they live in another Nest context with its
 * own pool).
 *
 * `synchronous_commit = off`. Each delivery commits twice (lease, outcome);
 * waiting for the WAL flush on each is most of an attempt's database time. It is safe here
 * because every worker write is redone when lost: a crash of PostgreSQL can lose the last few
 * hundred milliseconds of commits, whole transactions at a time, so events come back
 * undispatched and are relayed again, a lost lease only lets the delivery be taken again, and a
 * lost outcome makes the delivery be sent again — at least once, as the receiver is promised
 * (spec 6.7).
 */
@Injectable()
export class WorkerConnectionSettings implements OnModuleInit {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    const pool = (this.dataSource.driver as unknown as { master: Pool }).master;
    pool.on('connect', (client: PoolClient) => void client.query('SET synchronous_commit = off').catch(() => undefined));
  }
}
