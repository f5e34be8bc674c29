/** How often a repeating connection warning is written at most. */
const INTERVAL_MS = 30_000;

/**
 * A warning for a connection's repeated errors, written at most once every INTERVAL_MS with how
 * many were held back since: a client retrying an unreachable Redis every few hundred
 * milliseconds wrote about nine lines a second per process, tens of thousands an hour.
 */
export function throttledWarning(warn: (message: string) => void, now: () => number = Date.now): (message: string) => void {
  let writtenAt = -Infinity;
  let held = 0;
  return (message) => {
    if (now() - writtenAt < INTERVAL_MS) {
      held += 1;
      return;
    }
    warn(held > 0 ? `${message} (and ${held} more like it since the last)` : message);
    writtenAt = now();
    held = 0;
  };
}
