import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { SystemDnsResolver } from './webhook-dns-resolver.js';

/**
 * A DNS server on 127.0.0.1 for the resolver to ask: `hooks.test` has one A record and no AAAA,
 * `silent.test` is never answered, every other name does not exist.
 */
async function fakeDnsServer(): Promise<{ socket: Socket; server: string; asked: string[] }> {
  const socket = createSocket('udp4');
  const asked: string[] = [];
  socket.on('message', (query, from) => {
    const labels: string[] = [];
    let at = 12;
    while (query[at] !== 0) {
      labels.push(query.subarray(at + 1, at + 1 + query[at]).toString('ascii'));
      at += query[at] + 1;
    }
    const name = labels.join('.');
    const type = query.readUInt16BE(at + 1);
    asked.push(`${name} ${type}`);
    if (name === 'silent.test') return;
    const question = query.subarray(12, at + 5);
    const answers = name === 'hooks.test' && type === 1 ? [Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 93, 184, 216, 34])] : [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(name === 'hooks.test' ? 0x8180 : 0x8183, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    socket.send(Buffer.concat([header, question, ...answers]), from.port, from.address);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return { socket, server: `127.0.0.1:${socket.address().port}`, asked };
}

describe('SystemDnsResolver', () => {
  let dns: Awaited<ReturnType<typeof fakeDnsServer>>;
  let resolver: SystemDnsResolver;

  beforeAll(async () => {
    dns = await fakeDnsServer();
    resolver = new SystemDnsResolver({ timeoutMs: 200, tries: 2, servers: [dns.server] });
  });
  afterAll(() => dns.socket.close());

  it("asks the DNS servers for the name's A and AAAA records", async () => {
    expect(await resolver.lookup('hooks.test')).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(dns.asked).toEqual(expect.arrayContaining(['hooks.test 1', 'hooks.test 28']));
  });

  it('gives up on servers that never answer within its bound, holding none of the threads file and zlib work need', async () => {
    const started = performance.now();
    let settled = 0;
    const lookup = () => resolver.lookup('silent.test').then(() => 'answered', (error: NodeJS.ErrnoException) => error.code);
    const lookups = Array.from({ length: 8 }, () => lookup().finally(() => (settled += 1)));
    // getaddrinfo would hold libuv's four threads for the system resolver's timeouts; this file read would wait behind them.
    await readFile(new URL(import.meta.url));
    expect(settled).toBe(0);
    expect(await Promise.all(lookups)).toEqual(Array(8).fill('ETIMEOUT'));
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('answers localhost from the hosts file without asking the servers, and asks the system lookup for a name they say does not exist', async () => {
    expect(await resolver.lookup('localhost')).toEqual(expect.arrayContaining([{ address: '127.0.0.1', family: 4 }]));
    expect(dns.asked.filter((question) => question.startsWith('localhost'))).toEqual([]);
    await expect(resolver.lookup('nowhere.invalid')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(dns.asked).toEqual(expect.arrayContaining(['nowhere.invalid 1']));
  });

  it('still resolves localhost when no DNS server can be reached', async () => {
    const offline = new SystemDnsResolver({ timeoutMs: 200, tries: 1, servers: ['127.0.0.1:9'] });
    expect(await offline.lookup('localhost')).toEqual(expect.arrayContaining([{ address: '127.0.0.1', family: 4 }]));
  });
});
