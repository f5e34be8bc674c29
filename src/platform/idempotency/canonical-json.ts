import { createHash } from 'node:crypto';

/**
 * A JSON value written with object members sorted by name (UTF-16 code units, recursively) and
 * no whitespace, so two bodies that differ only in member order or spacing give the same text
 * (spec section 8 rule 3: "bodies are compared as JSON, key order ignored"). For values that
 * came out of JSON.parse this is the RFC 8785 canonical form. Array order is significant.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  if (typeof value === 'object') {
    const members = Object.keys(value)
      .filter((name) => (value as Record<string, unknown>)[name] !== undefined)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * SHA-256 (hex) of what a request asks besides its path: the canonical JSON of its body (a
 * request without body counts as `null`), then of its query parameters when it has any, so that
 * `replay_failed?since=…` with another `since` is another request. A request without query
 * string hashes its body alone, as records stored before the query counted (and by an older
 * process) were hashed: the store compares those with the body's hash (`hash_covers_query`).
 */
export function requestHash(body: unknown, query: Record<string, unknown> = {}): string {
  const hash = createHash('sha256').update(canonicalJson(body));
  if (Object.keys(query).length > 0) hash.update(`\n?${canonicalJson(query)}`);
  return hash.digest('hex');
}
