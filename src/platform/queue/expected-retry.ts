/**
 * Thrown by a handler whose job failed in a way it expects and will retry (a webhook receiver
 * answering 500): the queue waits `delayMs` and logs the failure at `warn`, not `error`.
 */
export class ExpectedRetry extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
    this.name = 'ExpectedRetry';
  }
}
