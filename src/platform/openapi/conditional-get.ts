/**
 * Whether an `If-None-Match` header names one of `etags` (RFC 9110 §13.1.2): `*`, or a
 * comma-separated list of entity tags compared weakly (a `W/` prefix is ignored). Tags are
 * compared without their quotes, so a client that drops them is still understood.
 */
export function ifNoneMatchHits(header: string | undefined, etags: readonly string[]): boolean {
  if (header === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//i, '').replace(/^"(.*)"$/, '$1');
  const known = new Set(etags.map(opaque));
  return header.split(',').some((tag) => tag.trim() === '*' || (tag.trim() !== '' && known.has(opaque(tag))));
}
