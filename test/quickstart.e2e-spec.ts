import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { isolatedDatabase } from './support/deliveries.js';
import { freePort } from './support/free-port.js';
import { listeningPort, spawnMain } from './support/main-process.js';

const run = promisify(execFile);

/** The README's quickstart block, exactly as a newcomer pastes it. */
function quickstartBlock(): string {
  const readme = readFileSync('README.md', 'utf8');
  const marker = readme.indexOf('<!-- quickstart:');
  const start = readme.indexOf('```bash\n', marker) + '```bash\n'.length;
  return readme.slice(start, readme.indexOf('\n```', start));
}

describe("the README's quickstart (e2e)", () => {
  it('runs command by command against a started service, every command succeeding', async () => {
    const block = quickstartBlock();
    expect(block).toContain('seed:demo');
    // Every URL is quoted (zsh would glob an unquoted ?), and the demo output stays outside the repository.
    for (const url of block.match(/\S*\$(BASE|MCP)\S*/g) ?? []) expect(url).toMatch(/^"/);
    expect(block).not.toMatch(/curl [^"\n]*\$(BASE|MCP)\//);
    expect(block).toContain('DEMO="${TMPDIR:-/tmp}/');

    const [port, mcpPort] = [await freePort(), await freePort()];
    // A database and Redis prefix of its own: its worker would relay and sweep other files' events and jobs.
    const database = await isolatedDatabase('quickstart');
    const service = { DATABASE_URL: database.url, REDIS_PREFIX: `${process.env.REDIS_PREFIX}-quickstart` };
    const main = spawnMain({ ...service, APP_ROLES: 'api,mcp,worker', PORT: String(port), MCP_PORT: String(mcpPort) });
    try {
      await listeningPort(main);
      // -e: the first failing command fails the run; pipefail: also inside a pipe.
      const { stdout } = await run('bash', ['-e', '-o', 'pipefail', '-c', block], {
        env: { ...process.env, ...service, BASE: `http://127.0.0.1:${port}`, MCP: `http://127.0.0.1:${mcpPort}` },
        maxBuffer: 10 * 1024 * 1024,
      });
      expect(stdout).toContain('"status":"issued"');
      expect(stdout).toContain('"protocolVersion"');
      expect(stdout).toMatch(/"type":"fin\.invoice\.created"/);
    } finally {
      await main.stop();
      await database.drop();
    }
  }, 180_000);
});
