import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { Redis } from 'ioredis';
import { AppConfig } from '../config/app-config.js';
import { reconnectWhenSilent } from './redis-liveness.js';

const PING_TIMEOUT_MS = 1000;

/** Readiness of Redis: a PING answered within a second over a connection kept for probes. */
@Injectable()
export class RedisHealthIndicator implements OnModuleDestroy {
  private readonly client: Redis;
  private readonly stopLivenessChecks: () => void;

  constructor(
    @Inject(AppConfig) config: AppConfig,
    @Inject(HealthIndicatorService) private readonly indicators: HealthIndicatorService,
  ) {
    // Connects on the first probe; a PING sent while disconnected fails instead of waiting.
    this.client = new Redis(config.REDIS_URL, {
      lazyConnect: true,
      connectTimeout: PING_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    // Connection errors are what the probe reports; without a listener ioredis prints each one.
    this.client.on('error', () => undefined);
    this.stopLivenessChecks = reconnectWhenSilent(this.client);
  }

  async isHealthy(key: string) {
    const indicator = this.indicators.check(key);
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS);
      });
      await Promise.race([this.client.ping(), timeout]);
      return indicator.up();
    } catch (error) {
      return indicator.down({ message: error instanceof Error ? error.message : String(error) });
    } finally {
      clearTimeout(timer);
    }
  }

  onModuleDestroy(): void {
    this.stopLivenessChecks();
    this.client.disconnect();
  }
}
