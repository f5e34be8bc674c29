import { Redis } from 'ioredis';

const QUEUE_STATE_ERROR = 'Command queue state error';

/**
 * Opens a connection in MONITOR mode, resolved once Redis streams every command to it.
 *
 * ioredis's own `monitor()` marks its connection as monitoring one microtask after MONITOR's OK.
 * On a busy Redis the first monitored lines arrive in the same chunk as that OK; ioredis takes
 * them for replies to no command and emits "Command queue state error", which rejected `monitor()`
 * and then crashed the test as an unhandled 'error'. Those lines are commands Redis ran before
 * MONITOR answered, so before any the caller sends: they are dropped here. Any other error is thrown.
 */
export async function openRedisMonitor(url: string): Promise<Redis> {
  const monitor = new Redis(url, { monitor: true, lazyConnect: true });
  let monitoring = false;
  monitor.on('error', (error: Error) => {
    if (!monitoring && error.message.startsWith(QUEUE_STATE_ERROR)) return;
    throw error;
  });
  const started = new Promise<void>((resolve) =>
    monitor.once('monitoring', () => {
      monitoring = true;
      resolve();
    }),
  );
  await monitor.connect();
  await started;
  return monitor;
}
