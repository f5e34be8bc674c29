import { MAX_TIMER_MS } from '../config/app-config.js';

/**
 * Whether `work` settled (fulfilled or rejected) within `ms`; it is not awaited past that. A wait
 * past a timer's longest (MAX_TIMER_MS) is that longest: Node would fire it at once.
 */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => (timer = setTimeout(resolve, Math.min(ms, MAX_TIMER_MS), false)));
  try {
    return await Promise.race([work.then(() => true, () => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}
