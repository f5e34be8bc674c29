import { lookup, Resolver } from 'node:dns/promises';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name resolution for webhook URLs; tests replace it through `WEBHOOK_DNS_RESOLVER`. */
export interface WebhookDnsResolver {
  lookup(host: string): Promise<ResolvedAddress[]>;
}

export const WEBHOOK_DNS_RESOLVER = Symbol('WEBHOOK_DNS_RESOLVER');

/** `localhost` and its subdomains never go to DNS (RFC 6761): the hosts file answers them. */
const LOCAL_NAME = /(^|\.)localhost$/i;

export interface DnsQueryOptions {
  /** Each query's first wait for an answer, and how often it is sent (c-ares waits longer each time): 750 ms twice fail a name whose servers never answer within about 3 s. */
  timeoutMs: number;
  tries: number;
  /** The servers to ask (tests); default: the system's (/etc/resolv.conf). */
  servers?: string[];
}

const DEFAULT_QUERIES: DnsQueryOptions = { timeoutMs: 750, tries: 2 };

/**
 * Asks the DNS servers directly (c-ares, on the event loop), with a bounded wait. The system's
 * getaddrinfo runs on libuv's four-thread pool and waits for the resolver's own timeouts (10 s
 * and more): a few names whose servers never answer, one company's endpoints, would hold every
 * thread, and every other company's URL check (and the process's file and zlib work) would queue
 * behind them. So a query that times out fails the lookup (a retried `dns` error). Any other
 * outcome without an address (the name does not exist, no server reachable) is looked up through
 * getaddrinfo after all, for what only it reads: /etc/hosts, search domains; `localhost` goes
 * there at once (operations.md: it resolves to 127.0.0.1).
 */
export class SystemDnsResolver implements WebhookDnsResolver {
  private readonly resolver: Resolver;

  constructor(options: DnsQueryOptions = DEFAULT_QUERIES) {
    this.resolver = new Resolver({ timeout: options.timeoutMs, tries: options.tries });
    if (options.servers) this.resolver.setServers(options.servers);
  }

  async lookup(host: string): Promise<ResolvedAddress[]> {
    if (!LOCAL_NAME.test(host)) {
      const [v4, v6] = await Promise.all([this.query(() => this.resolver.resolve4(host)), this.query(() => this.resolver.resolve6(host))]);
      const found = [...v4.addresses.map((address): ResolvedAddress => ({ address, family: 4 })), ...v6.addresses.map((address): ResolvedAddress => ({ address, family: 6 }))];
      if (found.length > 0) return found;
      const timedOut = [v4.error, v6.error].find((error) => error?.code === 'ETIMEOUT');
      if (timedOut) throw timedOut;
    }
    const records = await lookup(host, { all: true, verbatim: true });
    return records.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
  }

  private async query(ask: () => Promise<string[]>): Promise<{ addresses: string[]; error?: NodeJS.ErrnoException }> {
    try {
      return { addresses: await ask() };
    } catch (error) {
      return { addresses: [], error: error as NodeJS.ErrnoException };
    }
  }
}
