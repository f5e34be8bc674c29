import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

export type LogLine = Record<string, any>;

/**
 * A Node child process, its output collected: the production entry point (`node dist/main.js`,
 * built by `npm test`, with spawnMain) or a script of dist's code (spawnNode).
 */
export interface MainProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Every stdout line parsed as JSON (throws on a line that is not). */
  lines: () => LogLine[];
  exit: Promise<number | null>;
  /** Stops the process (SIGTERM) and waits for it to exit. */
  stop: () => Promise<void>;
}

/** The environment (LOG_LEVEL=info unless `env` says otherwise) and pipes every child process here gets. */
const childOptions = (env: Record<string, string>) => ({ env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] as ('ignore' | 'pipe')[] });

/** The production entry point as a child process. */
export function spawnMain(env: Record<string, string>): MainProcess {
  return spawnNode([join(process.cwd(), 'dist/main.js')], env);
}

/** `node <args>` as a child process (LOG_LEVEL=info unless `env` says otherwise), its output collected. */
export function spawnNode(args: string[], env: Record<string, string> = {}): MainProcess {
  return collected(spawn(process.execPath, args, childOptions(env)));
}

/**
 * `npm run --silent <script>` as an operator runs it, in a process group of its own, so that
 * what it started can be found and stopped even when npm does not stop it (`killGroup`).
 */
export function spawnNpmScript(script: string, env: Record<string, string> = {}): MainProcess & { killGroup: () => void } {
  const child = spawn('npm', ['run', '--silent', script], { ...childOptions(env), detached: true });
  return {
    ...collected(child),
    killGroup: () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    },
  };
}

function collected(child: ChildProcess): MainProcess {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    lines: () =>
      stdout
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as LogLine),
    exit,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exit;
    },
  };
}

/**
 * The port the API role bound, from main's listening line. Generous: a cold Node start plus
 * migrations can take long on a loaded two-core machine.
 */
export async function listeningPort(main: MainProcess, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const line = main.lines().find((entry) => entry.context === 'main' && typeof entry.port === 'number');
    if (line) return line.port as number;
    if (main.child.exitCode !== null) throw new Error(`dist/main.js exited with ${main.child.exitCode}:\n${main.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no listening line in:\n${main.stdout()}`);
}
