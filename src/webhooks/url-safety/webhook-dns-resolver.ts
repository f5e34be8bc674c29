import { Injectable } from '@nestjs/common';
import { lookup } from 'node:dns/promises';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name resolution for webhook URLs; tests replace it through `WEBHOOK_DNS_RESOLVER`. */
export interface WebhookDnsResolver {
  lookup(host: string): Promise<ResolvedAddress[]>;
}

export const WEBHOOK_DNS_RESOLVER = Symbol('WEBHOOK_DNS_RESOLVER');

/**
 * The operating system's resolver (getaddrinfo), which also reads /etc/hosts, so `localhost`
 * resolves as operations.md expects in development and tests.
 */
@Injectable()
export class SystemDnsResolver implements WebhookDnsResolver {
  async lookup(host: string): Promise<ResolvedAddress[]> {
    const records = await lookup(host, { all: true, verbatim: true });
    return records.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
  }
}
