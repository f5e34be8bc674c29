import { createHash } from 'node:crypto';

/**
 * A JSON value written with object members sorted by name (UTF-16 code units, recursively) and
 * no whitespace, so two bodies that differ only in member order or spacing give the same text
 * (spec section 8 rule 3: "bodies are compared as JSON, key order ignored"). For values that
 * came out of JSON.parse this is the RFC 8785 canonical form. Array order is significant.
 * JSON.parse reads a number beyond a double's range (`1e999`) as ±Infinity, which JSON.stringify
 * would write as `null`: such a number is written `1e999` or `-1e999` instead, so a body holding
 * one is not the same request as one holding null.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (value === Infinity || value === -Infinity) return value > 0 ? '1e999' : '-1e999';
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
 * SHA-256 (hex) of what a request asks besides its path: `request` of the canonical JSON of its
 * body (a request without body counts as `null`), then of its query parameters when it has any,
 * so that `replay_failed?since=…` with another `since` is another request; `body` of its body
 * alone, as records stored before the query counted (and by an older process) were hashed, which
 * the store compares with it (`hash_covers_query`). Without a query string the two are one.
 */
export function requestHashes(body: unknown, query: Record<string, unknown> = {}): { request: string; body: string } {
  const canonicalBody = canonicalJson(body);
  const bodyHash = sha256(canonicalBody);
  if (Object.keys(query).length === 0) return { request: bodyHash, body: bodyHash };
  return { request: sha256(`${canonicalBody}\n?${canonicalJson(query)}`), body: bodyHash };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
