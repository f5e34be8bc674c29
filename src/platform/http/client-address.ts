import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/**
 * The client address of a request on a plain `node:http` server (the agent-tool server), read as
 * express reads `request.ip` on the REST API: the TCP peer, or what `X-Forwarded-For` says behind
 * the proxies `TRUST_PROXY` names (a hop count, or addresses and ranges).
 */
export function clientAddressReader(trustProxy: boolean | number | string): (request: IncomingMessage) => string {
  const trust: (address: string, hop: number) => boolean =
    typeof trustProxy === 'number'
      ? (_, hop) => hop < trustProxy
      : trustProxy === true
        ? () => true
        : proxyaddr.compile(trustProxy === false ? [] : trustProxy.split(',').map((entry) => entry.trim()));
  return (request) => proxyaddr(request, trust);
}
