import type { INestApplicationContext } from '@nestjs/common';
import { jest } from '@jest/globals';
import { type ResolvedAddress, WEBHOOK_DNS_RESOLVER, type WebhookDnsResolver } from '../../src/webhooks/url-safety/webhook-dns-resolver.js';

/**
 * Replaces name resolution of webhook URLs in a running app: each name maps to its addresses;
 * other names fail like NXDOMAIN. Restore with the returned function (or jest.restoreAllMocks).
 */
export function stubDns(app: INestApplicationContext, zone: Record<string, string[]>): () => void {
  const resolver = app.get<WebhookDnsResolver>(WEBHOOK_DNS_RESOLVER);
  const spy = jest.spyOn(resolver, 'lookup').mockImplementation(async (host: string): Promise<ResolvedAddress[]> => {
    const records = zone[host.toLowerCase()];
    if (!records) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return records.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  });
  return () => spy.mockRestore();
}
