import { loadConfig } from '../../platform/config/app-config.js';
import { DomainException } from '../../platform/errors/domain.exception.js';
import type { ResolvedAddress, WebhookDnsResolver } from './webhook-dns-resolver.js';
import { WebhookUrlChecker } from './webhook-url-checker.js';

/** Stub DNS: each name maps to its records; unknown names fail like NXDOMAIN. */
const ZONE: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'multi.example.com': ['93.184.216.34', '8.8.8.8'],
  'v6only.example.com': ['2606:2800:220:1:248:1893:25c8:1946'],
  'v6loopback.example.com': ['::1'],
  'dual.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'api.service.example': ['198.51.99.7'],
  'alias-of-api.example.net': ['198.51.99.7'],
  'alias-of-host.example.net': ['45.33.32.156'],
  'mixed.example.com': ['93.184.216.34', '10.0.0.5'],
  'localhost': ['127.0.0.1', '::1'],
  'private.example.com': ['10.1.2.3'],
  'private172.example.com': ['172.16.5.4'],
  'private192.example.com': ['192.168.1.1'],
  'loopback.example.com': ['127.0.0.53'],
  'linklocal.example.com': ['169.254.169.254'],
  'cgnat.example.com': ['100.64.0.1'],
  'cgnat-top.example.com': ['100.127.255.254'],
  'ietf.example.com': ['192.0.0.8'],
  'bench.example.com': ['198.18.0.1'],
  'bench2.example.com': ['198.19.255.1'],
  'class-e.example.com': ['240.0.0.1'],
  'class-e-top.example.com': ['254.255.255.254'],
  'zero.example.com': ['0.0.0.0'],
  'zero-net.example.com': ['0.1.2.3'],
  'multicast.example.com': ['224.0.0.1'],
  'multicast-top.example.com': ['239.255.255.250'],
  'broadcast.example.com': ['255.255.255.255'],
  'doc1.example.com': ['192.0.2.10'],
  'doc2.example.com': ['198.51.100.10'],
  'doc3.example.com': ['203.0.113.10'],
  'relay6to4.example.com': ['192.88.99.1'],
  'empty.example.com': [],
};

const resolver: WebhookDnsResolver = {
  lookup: async (host: string): Promise<ResolvedAddress[]> => {
    const records = ZONE[host.toLowerCase()];
    if (!records) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return records.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  },
};

function checker(env: Record<string, string> = {}, hostAddresses: string[] = ['127.0.0.1', '::1', '45.33.32.156']): WebhookUrlChecker {
  const config = loadConfig({ PUBLIC_BASE_URL: 'https://api.service.example', ...env });
  return new WebhookUrlChecker(config, resolver, () => hostAddresses);
}

async function refusal(url: string, env: Record<string, string> = {}): Promise<DomainException> {
  try {
    await checker(env).vet(url);
  } catch (error) {
    if (error instanceof DomainException) return error;
    throw error;
  }
  throw new Error(`${url} was accepted`);
}

describe('WebhookUrlChecker', () => {
  const hostile: [string, string][] = [
    // scheme and credentials
    ['http://hooks.example.com/', 'plain http'],
    ['ftp://hooks.example.com/', 'ftp'],
    ['file:///etc/passwd', 'file'],
    ['gopher://hooks.example.com:70/', 'gopher'],
    ['javascript:alert(1)', 'javascript'],
    ['https://user:pass@hooks.example.com/', 'credentials'],
    ['https://user@hooks.example.com/', 'user name only'],
    ['hooks.example.com/path', 'not absolute'],
    ['', 'empty'],
    ['https://', 'no host'],
    ['https://hooks.example.com:0/', 'port 0'],
    // numeric hosts in every notation
    ['https://93.184.216.34/', 'public dotted IPv4'],
    ['https://127.0.0.1/', 'loopback dotted'],
    ['https://2130706433/', 'decimal'],
    ['https://0x7f000001/', 'hex'],
    ['https://0x7f.0x0.0x0.0x1/', 'hex parts'],
    ['https://0177.0.0.1/', 'octal'],
    ['https://017700000001/', 'octal whole'],
    ['https://127.1/', 'short form'],
    ['https://0/', 'zero'],
    ['https://[::1]/', 'IPv6 loopback'],
    ['https://[::ffff:127.0.0.1]/', 'IPv4-mapped IPv6'],
    ['https://[::ffff:7f00:1]/', 'IPv4-mapped IPv6 hex'],
    ['https://[2606:2800:220:1:248:1893:25c8:1946]/', 'public IPv6 literal'],
    ['https://[fe80::1%25eth0]/', 'zoned link-local'],
    ['https://169.254.169.254/latest/meta-data/', 'metadata address'],
    // names resolving to non-public addresses
    ['https://localhost/', 'localhost'],
    ['https://LOCALHOST./', 'localhost with trailing dot'],
    ['https://private.example.com/', '10/8'],
    ['https://private172.example.com/', '172.16/12'],
    ['https://private192.example.com/', '192.168/16'],
    ['https://loopback.example.com/', '127/8'],
    ['https://linklocal.example.com/', 'link-local metadata'],
    ['https://cgnat.example.com/', 'CGNAT bottom'],
    ['https://cgnat-top.example.com/', 'CGNAT top'],
    ['https://ietf.example.com/', '192.0.0.0/24'],
    ['https://bench.example.com/', '198.18/15'],
    ['https://bench2.example.com/', '198.19 (in 198.18/15)'],
    ['https://class-e.example.com/', '240/4'],
    ['https://class-e-top.example.com/', '240/4 top'],
    ['https://zero.example.com/', '0.0.0.0'],
    ['https://zero-net.example.com/', '0/8'],
    ['https://multicast.example.com/', 'multicast'],
    ['https://multicast-top.example.com/', 'multicast SSDP'],
    ['https://broadcast.example.com/', 'broadcast'],
    ['https://doc1.example.com/', 'TEST-NET-1'],
    ['https://doc2.example.com/', 'TEST-NET-2'],
    ['https://doc3.example.com/', 'TEST-NET-3'],
    ['https://relay6to4.example.com/', '6to4 relay anycast'],
    ['https://mixed.example.com/', 'one public and one private A record'],
    // the service's own addresses
    ['https://api.service.example/', "PUBLIC_BASE_URL's host"],
    ['https://alias-of-api.example.net/', "another name for PUBLIC_BASE_URL's address"],
    ['https://alias-of-host.example.net/', "one of the machine's interfaces"],
    // unresolvable
    ['https://does-not-exist.example.com/', 'NXDOMAIN'],
    ['https://empty.example.com/', 'no records'],
  ];

  it.each(hostile)('refuses %s (%s) with url_not_publicly_routable', async (url) => {
    const error = await refusal(url);
    expect(error.errorName).toBe('WebhookUrlNotPubliclyRoutable');
    expect(error.definition.status).toBe(422);
    expect(error.definition.code).toBe('url_not_publicly_routable');
    expect(error.extras.field).toBe('url');
  });

  it.each([
    ['https://does-not-exist.example.com/', 'unresolved'],
    ['https://empty.example.com/', 'unresolved'],
    ['https://private.example.com/', 'resolved'],
    ['https://api.service.example/', 'resolved'],
    ['https://93.184.216.34/', 'url'],
    ['ftp://hooks.example.com/', 'url'],
  ])('tells a delivery attempt how %s was refused (%s)', async (url, stage) => {
    expect(await refusal(url)).toMatchObject({ stage });
  });

  it('has at least 40 hostile cases', () => {
    expect(hostile.length).toBeGreaterThanOrEqual(40);
  });

  it.each([
    ['https://hooks.example.com/webhooks?x=1', ['93.184.216.34']],
    ['https://HOOKS.example.com:8443/a/b', ['93.184.216.34']],
    ['https://multi.example.com/', ['93.184.216.34', '8.8.8.8']],
    ['https://dual.example.com/', ['93.184.216.34']],
    ['https://v6only.example.com/', []],
    ['https://v6loopback.example.com/', []],
  ])('accepts %s, reporting its A records', async (url, ipv4) => {
    const vetted = await checker().vet(url);
    expect(vetted.ipv4).toEqual(ipv4);
    expect(vetted.url.href).toBe(new URL(url).href);
  });

  it('accepts http:// only with WEBHOOK_ALLOW_HTTP', async () => {
    await expect(checker({ WEBHOOK_ALLOW_HTTP: 'true' }).vet('http://hooks.example.com/')).resolves.toMatchObject({ ipv4: ['93.184.216.34'] });
  });

  it('lets WEBHOOK_ALLOWED_CIDRS admit a non-public or own address, but never a numeric host', async () => {
    const env = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8,10.0.0.0/8' };
    await expect(checker(env).vet('http://localhost:4000/hook')).resolves.toMatchObject({ ipv4: ['127.0.0.1'] });
    await expect(checker(env).vet('https://private.example.com/')).resolves.toMatchObject({ ipv4: ['10.1.2.3'] });
    await expect(checker(env).vet('http://127.0.0.1:4000/hook')).rejects.toMatchObject({ errorName: 'WebhookUrlNotPubliclyRoutable' });
    await expect(checker(env).vet('https://linklocal.example.com/')).rejects.toMatchObject({ errorName: 'WebhookUrlNotPubliclyRoutable' });
    // One address is a range of that address alone.
    const one = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_CIDRS: '10.1.2.3,::1' };
    await expect(checker(one).vet('https://private.example.com/')).resolves.toMatchObject({ ipv4: ['10.1.2.3'] });
    await expect(checker(one).vet('http://localhost:4000/hook')).rejects.toMatchObject({ errorName: 'WebhookUrlNotPubliclyRoutable' });
    const mapped = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_CIDRS: '::ffff:127.0.0.1' };
    await expect(checker(mapped).vet('http://localhost:4000/hook')).resolves.toMatchObject({ ipv4: ['127.0.0.1'] });
  });

  it("never admits the service's own servers: an own address on the REST, agent-tool or metrics port, whatever the allow-list", async () => {
    const env = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', PORT: '4340', MCP_PORT: '4341', METRICS_PORT: '4342' };
    for (const url of ['http://localhost:4340/v1/invoices', 'http://localhost:4341/mcp', 'http://localhost:4342/metrics']) {
      await expect(checker(env).vet(url)).rejects.toMatchObject({ errorName: 'WebhookUrlNotPubliclyRoutable', message: expect.stringContaining("this service's own server") });
    }
    // Any loopback address reaches them, though the interface names 127.0.0.1 only.
    await expect(checker(env).vet('http://loopback.example.com:4340/v1/invoices')).rejects.toMatchObject({ message: expect.stringContaining("this service's own server") });
    await expect(checker({ ...env, PORT: '80' }).vet('http://localhost/hook')).rejects.toMatchObject({ errorName: 'WebhookUrlNotPubliclyRoutable' });
    // Another port of the machine is a local receiver, as before.
    await expect(checker(env).vet('http://localhost:4343/hook')).resolves.toMatchObject({ ipv4: ['127.0.0.1'] });
  });
});
