import { StatementBatcher } from './statement-batcher.js';

describe('StatementBatcher', () => {
  it('runs calls made together as one batch, and calls made meanwhile as the next', async () => {
    const runs: number[][] = [];
    let release!: () => void;
    const firstRun = new Promise<void>((resolve) => (release = resolve));
    const batcher = new StatementBatcher<number, number>(async (inputs) => {
      runs.push(inputs);
      if (runs.length === 1) await firstRun;
      return inputs.map((n) => n * 10);
    });
    const first = [batcher.submit(1), batcher.submit(2)];
    await new Promise((resolve) => setImmediate(resolve));
    const later = [batcher.submit(3), batcher.submit(4), batcher.submit(5)];
    release();
    expect(await Promise.all([...first, ...later])).toEqual([10, 20, 30, 40, 50]);
    expect(runs).toEqual([[1, 2], [3, 4, 5]]);
  });

  it('takes at most maxBatch calls per run', async () => {
    const runs: number[][] = [];
    const batcher = new StatementBatcher<number, number>(async (inputs) => (runs.push(inputs), inputs), 2);
    await Promise.all([1, 2, 3].map((n) => batcher.submit(n)));
    expect(runs).toEqual([[1, 2], [3]]);
  });

  it('with lingerMs: a run right after another waits and gathers the calls made meanwhile; after a quiet moment a call runs at once', async () => {
    const runs: number[][] = [];
    const batcher = new StatementBatcher<number, number>(async (inputs) => (runs.push(inputs), inputs), 100, 50);
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    await batcher.submit(1);

    const busy = [batcher.submit(2)];
    await tick();
    await tick();
    busy.push(batcher.submit(3));
    await Promise.all(busy);
    expect(runs).toEqual([[1], [2, 3]]);

    // The quiet moment itself: past lingerMs (50) since the last run ended, a call no longer waits.
    await new Promise((resolve) => setTimeout(resolve, 60));
    const quiet = batcher.submit(4);
    await tick();
    expect(runs).toEqual([[1], [2, 3], [4]]);
    await quiet;
  });

  it('fails every call of a failed run, and runs the next calls anew', async () => {
    let fail = true;
    const batcher = new StatementBatcher<number, number>(async (inputs) => {
      if (fail) throw new Error('database down');
      return inputs;
    });
    const failed = [batcher.submit(1), batcher.submit(2)].map((call) => call.catch((error: Error) => error.message));
    expect(await Promise.all(failed)).toEqual(['database down', 'database down']);
    fail = false;
    expect(await batcher.submit(3)).toBe(3);
  });
});
