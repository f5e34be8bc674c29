import { once } from 'node:events';
import { type AddressInfo, connect } from 'node:net';
import { startApi, type TestApi } from './support/api.js';
import { startMcp, type TestMcp } from './support/mcp.js';
import { waitFor } from './support/wait-for.js';

const LIMIT_MS = 500;

/** Sends `text` and never the rest; answers what the server sends until it closes, and when. */
function trickle(port: number, text: string): Promise<{ received: string; afterMs: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => resolve({ received, afterMs: Date.now() - started }));
  });
}

function expectTimeoutProblem({ received, afterMs }: { received: string; afterMs: number }): void {
  const [head, body] = received.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 408 /);
  expect(head).toMatch(/\r\nContent-Type: application\/problem\+json/);
  expect(head).toMatch(/\r\nx-trace-id: [0-9a-f]{32}/);
  expect(head).toMatch(/\r\nConnection: close/);
  // As every answer: data, never a page, never stored (before, the socket's own answers had neither).
  expect(head).toMatch(/\r\nX-Content-Type-Options: nosniff/);
  expect(head).toMatch(/\r\nCache-Control: no-store/);
  expect(JSON.parse(body)).toMatchObject({ status: 408, detail_key: 'errors.common.request_timeout', detail: `The request did not arrive whole within ${LIMIT_MS / 1000} s.` });
  // Cut at the limit, checked once a second: not at Node's default of five minutes.
  expect(afterMs).toBeGreaterThanOrEqual(LIMIT_MS);
  expect(afterMs).toBeLessThan(LIMIT_MS + 5000);
}

describe('requests that trickle in (e2e)', () => {
  let api: TestApi;
  let mcp: TestMcp;
  const env = { HTTP_REQUEST_TIMEOUT_MS: String(LIMIT_MS) };

  beforeAll(async () => {
    [api, mcp] = await Promise.all([startApi({ env }), startMcp(env)]);
  });
  afterAll(() => Promise.all([api.close(), mcp.close()]));

  const apiPort = () => (api.app.getHttpServer().address() as AddressInfo).port;

  it('answers 408 request_timeout to headers that never end, and closes the connection', async () => {
    expectTimeoutProblem(await trickle(apiPort(), 'GET /v1/invoices HTTP/1.1\r\nHost: api.test.local\r\nX-Slow: '));
  });

  it('answers 408 request_timeout to a body that never arrives whole, and keeps serving', async () => {
    const text = 'POST /v1/invoices HTTP/1.1\r\nHost: api.test.local\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"customer';
    expectTimeoutProblem(await trickle(apiPort(), text));
    expect((await api.http.get('/v1/openapi.json')).status).toBe(200);
    // Counted with the status its client received, not the one its body reader gave afterwards.
    const counted = async () => (await api.http.get('/metrics')).text.match(/http_request_duration_seconds_count\{method="POST",route="unmatched",status="(\d+)"\} 1/)?.[1];
    await waitFor(async () => (await counted()) !== undefined, 5000, 'the timed-out request in the metrics');
    expect(await counted()).toBe('408');
  });

  it("names in the 408 the trace id its request's log line has", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const text = `POST /v1/invoices HTTP/1.1\r\nHost: api.test.local\r\ntraceparent: 00-${traceId}-00f067aa0ba902b7-01\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"customer`;
    const answer = await trickle(apiPort(), text);
    expectTimeoutProblem(answer);
    // Before: a new random id, which led to no log line.
    expect(answer.received).toMatch(new RegExp(`\r\nx-trace-id: ${traceId}\r\n`));
  });

  it('counts a request whose client went away while sending its body as 499, not as a 400 of its own', async () => {
    const arrived = once(api.app.getHttpServer(), 'request');
    const socket = connect(apiPort(), '127.0.0.1');
    await once(socket, 'connect');
    socket.write('POST /v1/invoices HTTP/1.1\r\nHost: api.test.local\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"customer_id":');
    await arrived;
    socket.destroy();
    const series = async () => (await api.http.get('/metrics')).text.match(/http_request_duration_seconds_count\{method="POST",route="unmatched",status="(?:400|499)"\} \d+/g) ?? [];
    await waitFor(async () => (await series()).length > 0, 5000, 'the abandoned request in the metrics');
    expect(await series()).toEqual(['http_request_duration_seconds_count{method="POST",route="unmatched",status="499"} 1']);
  });

  // Before: the 401 came at once, and a second answer, 408, once the body's time ran out.
  it('answers a tool-server request refused before its body arrived once, and closes the connection', async () => {
    const { port } = mcp.handle.server.address() as AddressInfo;
    const text = 'POST /tools/call HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer oht_nothing\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name"';
    const { received, afterMs } = await trickle(port, text);
    expect(received.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 401']);
    expect(afterMs).toBeLessThan(LIMIT_MS);
  });

  it('does the same on the agent-tool server', async () => {
    const { port } = mcp.handle.server.address() as AddressInfo;
    const text = 'POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n';
    expectTimeoutProblem(await trickle(port, text));
  });
});
