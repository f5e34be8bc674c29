import type { JobQueue } from '../../src/platform/queue/job-queue.service.js';
import { QUEUE_NAMES } from '../../src/platform/queue/queue.types.js';
import { waitFor } from './wait-for.js';

/**
 * The one way tests wait for queues: until no job of the given queues (default: all) is
 * waiting, prioritised, active or delayed (a retry not yet due counts as unfinished). The next
 * run of a repeating job, which a job scheduler always keeps delayed, does not count.
 */
export async function waitForQueues(jobs: JobQueue, timeoutMs = 15_000, queues = QUEUE_NAMES): Promise<void> {
  await waitFor(
    async () => {
      for (const name of queues) {
        const queue = jobs.bullQueue(name);
        const counts = await queue.getJobCounts('waiting', 'prioritized', 'active', 'waiting-children');
        if (Object.values(counts).some((count) => count > 0)) return false;
        const delayed = await queue.getDelayed();
        if (delayed.some((job) => !job.repeatJobKey)) return false;
      }
      return true;
    },
    timeoutMs,
    'the queues to drain',
  );
}
