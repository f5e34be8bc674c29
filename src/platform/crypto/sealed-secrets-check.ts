import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { type Logger, PINO_LOGGER } from '../logging/logging.module.js';
import { SealedSecrets } from './sealed-secrets.js';

/**
 * The check at the start of a role that opens secrets (the API, the worker): the start is refused
 * when the keys open none of a kind's newest sealed values, and warned about when they open only
 * some (SealedSecrets.assertOpenable). Provided by the global PlatformModule, whose hooks Nest
 * runs before other modules': the worker's queues and delivery loop have not started yet.
 */
@Injectable()
export class SealedSecretsCheck implements OnApplicationBootstrap {
  constructor(
    @Inject(SealedSecrets) private readonly sealed: SealedSecrets,
    @Inject(PINO_LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const unopened = await this.sealed.assertOpenable();
    if (unopened.length > 0) {
      this.logger.warn(
        { context: 'main', unopened },
        'some of the newest stored secrets open under no key of SECRETS_KEY or SECRETS_KEY_PREVIOUS; their endpoints cannot be delivered to',
      );
    }
  }
}
