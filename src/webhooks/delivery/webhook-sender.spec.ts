import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../platform/config/app-config.js';
import { classifySendError, WebhookSender } from './webhook-sender.js';

const error = (fields: Record<string, unknown>) => Object.assign(new Error('x'), fields);

describe('classifySendError', () => {
  it.each([
    [error({ name: 'TimeoutError', code: 23 }), 'timeout'],
    [error({ code: 'UND_ERR_HEADERS_TIMEOUT' }), 'timeout'],
    [error({ code: 'UND_ERR_CONNECT_TIMEOUT' }), 'timeout'],
    [error({ name: 'AbortError', code: 'UND_ERR_ABORTED' }), 'timeout'],
    [error({ code: 'ECONNREFUSED' }), 'connect'],
    [error({ code: 'UND_ERR_SOCKET', cause: error({ code: 'ECONNRESET' }) }), 'connect'],
    [error({ code: 'ENOTFOUND' }), 'dns'],
    [error({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), 'tls'],
    [error({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' }), 'tls'],
    [error({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }), 'tls'],
    [error({ cause: { code: 'CERT_HAS_EXPIRED' } }), 'tls'],
    [error({ code: 'UND_ERR_INVALID_ARG' }), 'protocol'],
    [Object.assign(new Error('bad response'), { code: 'UND_ERR_SOCKET' }), 'protocol'],
    [Object.assign(new Error('bad upgrade'), { code: 'UND_ERR_SOCKET' }), 'protocol'],
    ['not an error', 'protocol'],
  ])('%o is %s', (thrown, kind) => {
    expect(classifySendError(thrown)).toBe(kind);
  });
});

/** The sender against a local receiver that misbehaves on purpose, with a 300 ms receiver timeout. */
describe('WebhookSender time bounds', () => {
  let server: Server;
  let behave: (response: ServerResponse) => void;
  let closed: Promise<void>;
  const sender = new WebhookSender(loadConfig({ WEBHOOK_TIMEOUT_MS: '300' }));

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      closed = new Promise((resolve) => response.on('close', resolve));
      behave(response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await sender.onModuleDestroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const send = (path: string) =>
    sender.send({ url: new URL(`http://localhost:${(server.address() as AddressInfo).port}${path}`), ipv4: '127.0.0.1', headers: {}, body: '{}' });

  it('ends a receiver that trickles its body faster than the timeout at the whole exchange deadline, as a timeout', async () => {
    behave = (response) => {
      response.writeHead(200);
      const drip = setInterval(() => response.write('.'), 50);
      response.on('close', () => clearInterval(drip));
    };
    expect(await send('/trickle')).toEqual({ errorKind: 'timeout', message: expect.any(String) });
    // The connection is dropped: the receiver sees its answer end.
    await closed;
  });

  it('ends a receiver that never answers as a timeout', async () => {
    behave = () => undefined;
    expect(await send('/hang')).toEqual({ errorKind: 'timeout', message: expect.any(String) });
  });

  it('calls a receiver that answers 100 Continue unasked a protocol failure, not a connection failure', async () => {
    behave = (response) => {
      response.writeContinue();
      response.writeHead(200).end('ok');
    };
    expect(await send('/continue')).toEqual({ errorKind: 'protocol', message: expect.any(String) });
  });

  it('calls a receiver that switches protocols unasked a protocol failure, not a connection failure', async () => {
    behave = (response) => {
      response.socket?.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: Upgrade\r\n\r\n');
    };
    expect(await send('/upgrade')).toEqual({ errorKind: 'protocol', message: expect.any(String) });
  });

  it("calls an https:// receiver that does not speak TLS a tls failure, from the handshake's real error", async () => {
    behave = (response) => response.writeHead(204).end();
    const port = (server.address() as AddressInfo).port;
    expect(await sender.send({ url: new URL(`https://localhost:${port}/plain`), ipv4: '127.0.0.1', headers: {}, body: '{}' })).toEqual({
      errorKind: 'tls',
      message: expect.stringContaining('wrong version number'),
    });
  });

  it('reads an answer that comes in time', async () => {
    behave = (response) => response.writeHead(202, { 'retry-after': '5' }).end('ok');
    expect(await send('/fine')).toEqual({ status: 202, body: 'ok', retryAfter: '5' });
  });
});
