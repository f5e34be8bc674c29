import { Inject, Injectable, Optional } from '@nestjs/common';
import { networkInterfaces } from 'node:os';
import { AppConfig } from '../../platform/config/app-config.js';
import { DomainException } from '../../platform/errors/domain.exception.js';
import { type CidrRange, inRanges, isLoopback, isNumericHost, isPublicIPv4, parseCidr, sameAddress } from './address-classification.js';
import { type ResolvedAddress, WEBHOOK_DNS_RESOLVER, type WebhookDnsResolver } from './webhook-dns-resolver.js';

export interface VettedWebhookUrl {
  /** The parsed URL; `url.href` is the normalised form that is stored and posted to. */
  url: URL;
  /** Every A record of the host, each public or inside WEBHOOK_ALLOWED_CIDRS; empty for an AAAA-only name. */
  ipv4: string[];
}

/**
 * A refused URL. `stage` tells a delivery attempt what the refusal means for it: the name did
 * not resolve (`unresolved`, a retryable dns error), it resolved to an address it must not reach
 * (`resolved`, ssrf), or the URL itself was refused before any lookup (`url`).
 */
export class WebhookUrlRefusedException extends DomainException {
  constructor(
    detail: string,
    readonly stage: 'url' | 'unresolved' | 'resolved',
  ) {
    super('WebhookUrlNotPubliclyRoutable', detail, { field: 'url' });
  }
}

/** The addresses of this machine's own interfaces; replaceable so tests can name a public one. */
const WEBHOOK_HOST_ADDRESSES = Symbol('WEBHOOK_HOST_ADDRESSES');
export type HostAddresses = () => string[];

const machineAddresses: HostAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .flatMap((info) => (info ? [info.address] : []));

/**
 * Decides whether a webhook URL may be stored or posted to (spec 6.9). Used when an endpoint is
 * created or its URL changed, and again before every delivery attempt, because a name can be
 * re-pointed after it was vetted. Every refusal is 422 `url_not_publicly_routable`.
 */
@Injectable()
export class WebhookUrlChecker {
  private readonly allowedRanges: CidrRange[];
  private readonly ownHost: string;
  /** Where this service's REST, agent-tool and metrics servers listen. */
  private readonly ownPorts: Set<number>;

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(WEBHOOK_DNS_RESOLVER) private readonly resolver: WebhookDnsResolver,
    @Optional() @Inject(WEBHOOK_HOST_ADDRESSES) private readonly hostAddresses: HostAddresses = machineAddresses,
  ) {
    this.allowedRanges = config.WEBHOOK_ALLOWED_CIDRS.map(parseCidr);
    this.ownHost = new URL(config.publicBaseUrl).hostname;
    this.ownPorts = new Set([config.PORT, config.MCP_PORT, ...(config.METRICS_PORT === undefined ? [] : [config.METRICS_PORT])]);
  }

  async vet(rawUrl: string): Promise<VettedWebhookUrl> {
    const url = this.parse(rawUrl);
    const host = url.hostname;
    if (isNumericHost(host)) refuse('The URL must name its host; IP addresses are not accepted in any notation.', 'url');

    const records = await this.resolve(host);
    const ipv4 = records.filter((record) => record.family === 4).map((record) => record.address);
    if (ipv4.length > 0) {
      const own = await this.ownAddresses();
      const ownPort = this.ownPorts.has(Number(url.port || (url.protocol === 'https:' ? 443 : 80)));
      for (const address of ipv4) {
        const isOwn = isLoopback(address) || own.some((candidate) => sameAddress(candidate, address));
        // Even where the allow-list admits the machine's addresses (a local receiver), not the service's own servers.
        if (isOwn && ownPort) refuse(`The URL names this service's own server (${host}:${url.port || 'default port'}).`, 'resolved');
        if (inRanges(address, this.allowedRanges)) continue;
        if (!isPublicIPv4(address)) refuse(`The host ${host} resolves to a private, reserved or otherwise non-public address.`, 'resolved');
        if (isOwn) refuse(`The host ${host} resolves to one of this service's own addresses.`, 'resolved');
      }
    }
    return { url, ipv4 };
  }

  private parse(rawUrl: string): URL {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return refuse('The URL is not an absolute URL.', 'url');
    }
    const schemes = this.config.WEBHOOK_ALLOW_HTTP ? ['https:', 'http:'] : ['https:'];
    if (!schemes.includes(url.protocol)) refuse(`The URL must use ${schemes.map((scheme) => `${scheme}//`).join(' or ')}.`, 'url');
    if (url.username !== '' || url.password !== '') refuse('The URL must not carry credentials.', 'url');
    if (url.hostname === '') refuse('The URL has no host.', 'url');
    // The URL parser takes port 0, which no receiver can listen on.
    if (url.port === '0') refuse('The URL\'s port must be between 1 and 65535.', 'url');
    return url;
  }

  private async resolve(host: string): Promise<ResolvedAddress[]> {
    let records: ResolvedAddress[];
    try {
      records = await this.resolver.lookup(host.replace(/\.$/, ''));
    } catch {
      return refuse(`The host ${host} does not resolve.`, 'unresolved');
    }
    if (records.length === 0) refuse(`The host ${host} does not resolve.`, 'unresolved');
    return records;
  }

  /** The machine's interfaces plus the addresses of PUBLIC_BASE_URL's host (the REST and agent-tool servers). */
  private async ownAddresses(): Promise<string[]> {
    const own = this.hostAddresses();
    if (isNumericHost(this.ownHost)) return [...own, this.ownHost.replace(/^\[|\]$/g, '')];
    try {
      const records = await this.resolver.lookup(this.ownHost);
      return [...own, ...records.map((record) => record.address)];
    } catch {
      return own;
    }
  }
}

function refuse(detail: string, stage: WebhookUrlRefusedException['stage']): never {
  throw new WebhookUrlRefusedException(detail, stage);
}
