/**
 * Runs the calls of one SQL statement together: a call made while the statement is already
 * running waits and joins the next run, which takes every call waiting by then (up to
 * `maxBatch`). One call alone runs at once, so a quiet worker adds no delay; a busy one sends
 * one statement for many attempts instead of one each (each round trip costs the worker, and
 * PostgreSQL on the same cores, far more than the rows).
 *
 * With `lingerMs`, a run that would start less than `lingerMs` after the previous one ended
 * (the statement is busy) first waits that long, so that more calls join it: for a statement
 * off the critical path, fewer and fuller statements. After a quiet moment a call still runs at once.
 */
export class StatementBatcher<In, Out> {
  private waiting: { input: In; resolve: (output: Out) => void; reject: (error: unknown) => void }[] = [];
  private running = false;
  private lastRunEnded = -Infinity;

  /** `run` answers one output per input, in the same order. */
  constructor(
    private readonly run: (inputs: In[]) => Promise<Out[]>,
    private readonly maxBatch = 100,
    private readonly lingerMs = 0,
  ) {}

  submit(input: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (!this.running) {
        this.running = true;
        // Calls made in the same turn of the event loop share the first run.
        if (performance.now() - this.lastRunEnded < this.lingerMs) setTimeout(() => void this.drain(), this.lingerMs);
        else setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch);
      try {
        const outputs = await this.run(batch.map((call) => call.input));
        batch.forEach((call, n) => call.resolve(outputs[n]));
      } catch (error) {
        for (const call of batch) call.reject(error);
      }
    }
    this.lastRunEnded = performance.now();
    this.running = false;
  }
}
