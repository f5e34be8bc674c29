import { once } from 'node:events';
import { connect } from 'node:net';
import { runCli } from './support/cli.js';
import { listeningPort, type MainProcess, spawnMain } from './support/main-process.js';
import { waitFor } from './support/wait-for.js';

/** `node dist/main.js` with the `mcp` role alone: the agent-tool server on MCP_PORT, logging as the API does. */
describe('mcp role of dist/main.js (e2e)', () => {
  let main: MainProcess;
  let base: string;

  beforeAll(async () => {
    main = spawnMain({ APP_ROLES: 'mcp', MCP_PORT: '0' });
    base = `http://127.0.0.1:${await listeningPort(main)}`;
  }, 90_000);
  afterAll(() => main?.stop());

  it('listens on MCP_PORT, serves tools, and logs each request as one JSON line with its trace id and no token', async () => {
    expect(main.lines().some((line) => /agent-tool server listening/.test(line.msg))).toBe(true);
    expect((await fetch(`${base}/handshake`)).status).toBe(200);

    const tenant = (await runCli('tenant:create', '--name', 'Role Check')).json as { id: string; slug: string };
    const user = (await runCli('user:create', '--tenant', tenant.id, '--email', 'role@example.test', '--permissions', 'support.tickets:read')).json.id as string;
    const token = (await runCli('mcp-token:create', '--tenant', tenant.id, '--user', user, '--tools', '*')).json.token as string;
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const response = await fetch(`${base}/tools/call`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'X-OH-Tenant': tenant.slug, traceparent: `00-${traceId}-b7ad6b7169203331-01`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'summarise_support', arguments: {} }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-trace-id')).toBe(traceId);
    expect(((await response.json()) as any).structuredContent).toEqual({ tickets_by_status: {}, unsolved_tickets_by_priority: {}, unsolved_tickets: 0 });

    const line = await waitFor(async () => main.lines().find((entry) => entry.trace_id === traceId && entry.msg === 'request completed'), 10_000, 'the request log line');
    expect(line).toMatchObject({ status: 200, method: 'POST', route: '/tools/call' });
    expect(main.stdout()).not.toContain(token.split('_').at(-1));

    // The tool call's own line names the tool and the token's public prefix.
    const prefix = /^oht_([a-z0-9]{12})_/.exec(token)![1];
    expect(main.lines().find((entry) => entry.msg === 'tool call' && entry.tool === 'summarise_support')).toMatchObject({ token_prefix: prefix, outcome: 'ok' });
    expect(line).toMatchObject({ key_prefix: prefix });

    // With METRICS_PORT unset, the mcp role alone serves /metrics on its own port.
    const scraped = await fetch(`${base}/metrics`);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toMatch(/mcp_tool_calls_total\{tool="summarise_support",outcome="ok"\} 1/);

    const oversized = `00-${'1'.repeat(32)}-b7ad6b7169203331-01`;
    const big = JSON.stringify({ name: 'summarise_support', arguments: { pad: 'x'.repeat(2_000_000) } });
    const refused = await fetch(`${base}/tools/call`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'X-OH-Tenant': tenant.slug, traceparent: oversized, 'Content-Type': 'application/json' }, body: big }).catch(
      () => undefined,
    );
    if (refused) expect(refused.status).toBe(413);
    // Before: the request line of a request destroyed while its body was read threw, and the process exited.
    expect(await waitFor(async () => main.lines().find((entry) => entry.trace_id === '1'.repeat(32) && entry.msg === 'request completed'), 10_000, 'its request line')).toMatchObject({
      status: 413,
    });
    expect((await fetch(`${base}/handshake`)).status).toBe(200);
    expect(main.child.exitCode).toBeNull();
  });

  it('logs a body its client abandons as the request it was, not as a failure of the server', async () => {
    const tenant = (await runCli('tenant:create', '--name', 'Abandoned Bodies')).json as { id: string; slug: string };
    const user = (await runCli('user:create', '--tenant', tenant.id, '--email', 'gone@example.test', '--permissions', 'support.tickets:read')).json.id as string;
    const token = (await runCli('mcp-token:create', '--tenant', tenant.id, '--user', user, '--tools', '*')).json.token as string;
    const { port } = new URL(base);
    for (const [path, traceId] of [['/tools/call', 'a'.repeat(32)], ['/mcp', 'b'.repeat(32)]]) {
      const socket = connect(Number(port), '127.0.0.1');
      await once(socket, 'connect');
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nX-OH-Tenant: ${tenant.slug}\r\n` +
          `traceparent: 00-${traceId}-b7ad6b7169203331-01\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
          // 100-continue: once the server says so, it has the request; the body then stops short.
          `Expect: 100-continue\r\nContent-Length: 1000\r\n\r\n`,
      );
      const [continued] = (await once(socket, 'data')) as [Buffer];
      expect(continued.toString()).toMatch(/^HTTP\/1.1 100 Continue/);
      socket.write('{"name": "');
      socket.destroy();
      // Node itself answers the cut body 400 on the socket (or the line says 499: the client left).
      const line = await waitFor(async () => main.lines().find((entry) => entry.trace_id === traceId && entry.msg === 'request completed'), 10_000, 'its request line');
      expect(line).toMatchObject({ route: path, status: expect.any(Number), level: 30 });
    }
    // A whole request after them, answered: the abandoned ones' handlers have long run their course.
    const after = await fetch(`${base}/tools/list`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'X-OH-Tenant': tenant.slug } });
    expect(after.status).toBe(200);
    expect(main.lines().filter((entry) => (entry.level as number) >= 50)).toEqual([]);
  });
});
