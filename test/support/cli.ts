import { cliMain } from '../../src/cli/cli-main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed, when the command succeeded (read when asked for: help is text). */
  readonly json: Record<string, unknown>;
}

/** Runs the admin CLI exactly as `node dist/cli.js` does, on this test run's database. */
export async function runCli(...argv: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await cliMain(argv, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return {
    code,
    stdout,
    stderr,
    get json() {
      return code === 0 ? (JSON.parse(stdout) as Record<string, unknown>) : {};
    },
  };
}
