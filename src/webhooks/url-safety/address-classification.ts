import ipaddr from 'ipaddr.js';

/**
 * Address rules of webhook URLs (spec 6.9), on ipaddr.js's registry of special ranges rather
 * than hand-written masks. Public means ipaddr.js's `unicast`: everything else — private,
 * loopback, link-local, CGNAT 100.64.0.0/10, 192.0.0.0/24, benchmarking 198.18.0.0/15,
 * 240.0.0.0/4, 0.0.0.0/8, multicast, broadcast, the documentation ranges — is refused.
 */
export function isPublicIPv4(address: string): boolean {
  if (!ipaddr.IPv4.isValidFourPartDecimal(address)) return false;
  return ipaddr.IPv4.parse(address).range() === 'unicast';
}

/**
 * Whether a URL's host is an IP address in any notation. The WHATWG URL parser already turns
 * decimal, octal, hex and short IPv4 forms into dotted quads and keeps IPv6 in brackets; the
 * looser ipaddr.js parser also catches what reaches here some other way.
 */
export function isNumericHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  return hostname.startsWith('[') || ipaddr.isValid(bare) || /^[0-9.]+$/.test(bare) || /^0x[0-9a-f]+$/i.test(bare);
}

export type CidrRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses `a.b.c.d/n` or IPv6 CIDR notation; throws on anything else. */
export function parseCidr(cidr: string): CidrRange {
  const text = cidr.trim();
  if (text.includes('/')) return ipaddr.parseCIDR(text);
  // One address: a range of one (an IPv4-mapped one is its IPv4 address).
  const address = ipaddr.process(text);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** Whether an address lies inside one of the ranges (IPv4 ranges only match IPv4 addresses). */
export function inRanges(address: string, ranges: readonly CidrRange[]): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return ranges.some(([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits));
}

/** Whether an address is a loopback one (127.0.0.0/8, ::1): every one of them reaches this machine's servers, not only the interface's 127.0.0.1. */
export function isLoopback(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.process(address).range() === 'loopback';
}

/** The same address written two ways (`::ffff:1.2.3.4` and `1.2.3.4`) compares equal. */
export function sameAddress(a: string, b: string): boolean {
  if (!ipaddr.isValid(a) || !ipaddr.isValid(b)) return false;
  return ipaddr.process(a).toNormalizedString() === ipaddr.process(b).toNormalizedString();
}
