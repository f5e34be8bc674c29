import { Injectable } from '@nestjs/common';

/**
 * The time the delivery side judges by (attempt start times, key validity, the auto-disable
 * periods). A provider of its own so tests can move it days ahead and reach the auto-disable
 * rules in seconds.
 */
@Injectable()
export class WebhookClock {
  now(): Date {
    return new Date();
  }
}
