import { isUtf8 } from 'node:buffer';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { format as formatContentType, parse as parseContentType } from 'content-type';
import { DomainException } from '../errors/domain.exception.js';
import { memberPath } from '../validation/member-path.js';

/**
 * Deepest nesting of arrays and objects a request body may have. No body of this API needs
 * more than a few levels; unbounded nesting would let a body exhaust the stack of any code
 * that walks it recursively (the idempotency hash, validation).
 */
const MAX_BODY_DEPTH = 64;

/**
 * The checks every request body and query string passes before any route sees it, so no route
 * can forget one. Each throws a 422 `invalid_input` naming the member at fault.
 */

/**
 * What no string of a body may hold: U+0000, which PostgreSQL text and jsonb cannot store, and a
 * surrogate without its pair (JSON allows the escape `"\ud800"`), which is no character at all:
 * encoded to UTF-8 for storage it would silently become U+FFFD, a different text from the one sent.
 */
const UNSTORABLE = /\u0000|\p{Cs}/u;

/** The problem's `code`, and how the detail names the character, for each kind UNSTORABLE finds. */
export const UNSTORABLE_CHARACTERS = {
  invalid_character: 'the character U+0000',
  unpaired_surrogate: 'an unpaired UTF-16 surrogate (U+D800-U+DFFF)',
} as const;

/**
 * Refuses a parsed JSON body nested deeper than MAX_BODY_DEPTH, or holding an UNSTORABLE
 * character in a string or member name. Iterative, so a deep body cannot overflow the stack here
 * either. It runs on every body before authentication, so a member costs no allocation: only
 * objects and arrays are stacked, and a member's path is written only for a fault (60,000 members
 * cost 60-85 ms when each was stacked with its path, 16-24 ms so; docs/benchmarks.md).
 */
export function checkBody(body: unknown): void {
  if (typeof body === 'string') {
    const fault = unstorable(body);
    if (fault !== undefined) refuseUnstorable(fault, '');
  }
  if (typeof body !== 'object' || body === null) return;
  const pending: [object, string, number][] = [[body, '', 0]];
  while (pending.length > 0) {
    const [value, path, depth] = pending.pop()!;
    if (depth >= MAX_BODY_DEPTH) {
      throw new DomainException('InvalidInput', `The request body is nested deeper than ${MAX_BODY_DEPTH} levels.`, { code: 'max_depth' });
    }
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index];
        const fault = typeof item === 'string' ? unstorable(item) : undefined;
        if (fault !== undefined) refuseUnstorable(fault, memberPath(path, index));
        if (typeof item === 'object' && item !== null) pending.push([item, memberPath(path, index), depth + 1]);
      }
      continue;
    }
    for (const name of Object.keys(value)) {
      const member: unknown = (value as Record<string, unknown>)[name];
      const fault = unstorable(name) ?? (typeof member === 'string' ? unstorable(member) : undefined);
      if (fault !== undefined) refuseUnstorable(fault, memberPath(path, name));
      if (typeof member === 'object' && member !== null) pending.push([member, memberPath(path, name), depth + 1]);
    }
  }
}

/** The kind of UNSTORABLE character `text` holds, if any. */
function unstorable(text: string): keyof typeof UNSTORABLE_CHARACTERS | undefined {
  const found = UNSTORABLE.exec(text);
  if (found === null) return undefined;
  return found[0] === '\u0000' ? 'invalid_character' : 'unpaired_surrogate';
}

/** The 422 of a text at `path` (the body itself when empty) holding `code`'s character. */
function refuseUnstorable(code: keyof typeof UNSTORABLE_CHARACTERS, path: string): never {
  const field = path === '' ? undefined : path;
  throw new DomainException('InvalidInput', `${field ?? 'The body'} contains ${UNSTORABLE_CHARACTERS[code]}, which cannot be stored.`, { field, code });
}

/**
 * Refuses a JSON body whose bytes are not UTF-8, the only encoding JSON is exchanged in (RFC 8259
 * section 8.1): decoded anyway, each bad byte would become U+FFFD and be stored as if sent.
 */
export function checkUtf8(body: Buffer): void {
  if (!isUtf8(body)) throw new DomainException('MalformedJson', 'The request body is not valid UTF-8; send JSON encoded as UTF-8.');
}

/**
 * Refuses array-style (`limit[]=5`, `a[b]=1`) and repeated (`limit=1&limit=2`) query parameters:
 * no operation takes either, and silently using one of the values would hide the caller's mistake.
 * `query` is as the simple (node:querystring) parser gives it.
 */
export function checkQuery(query: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(query)) {
    if (/[[\]]/.test(name)) {
      throw new DomainException('InvalidInput', `Query parameter ${name} is not supported: parameters take one plain value.`, {
        field: name.replace(/\[.*$/, '') || name,
        code: 'invalid_format',
      });
    }
    if (Array.isArray(value)) {
      throw new DomainException('InvalidInput', `Query parameter ${name} must be given once.`, { field: name, code: 'invalid_format' });
    }
  }
}

/** The 415 of a body that is not JSON by its Content-Type (the REST API and the agent-tool server's shortcut). */
export function notJson(contentType: string | undefined): DomainException {
  const given = contentType?.split(';')[0].trim();
  return new DomainException(
    'UnsupportedMediaType',
    `${given ? `The request body is ${given.slice(0, 100)}` : 'The request body has no Content-Type'}; this operation reads application/json.`,
    { field: 'Content-Type' },
  );
}

/**
 * For a body read without body-parser (the agent-tool server's shortcut): JSON by its
 * Content-Type, else notJson's 415; read as it comes, so a charset other than UTF-8 or a
 * Content-Encoding is a 415 too, never a misread body.
 */
export function checkJsonHeaders(headers: IncomingHttpHeaders): void {
  const contentType = headers['content-type'];
  const type = contentType?.split(';')[0].trim().toLowerCase();
  if (hasBody(headers) && type !== 'application/json' && !/^application\/[!#$%&'*.^`|~\w-]+\+json$/.test(type ?? '')) throw notJson(contentType);
  checkUncompressedUtf8(headers);
}

/** The part of checkJsonHeaders for a body whose Content-Type another reader checks (the MCP SDK's, on `POST /mcp`). */
export function checkUncompressedUtf8(headers: IncomingHttpHeaders): void {
  checkJsonCharset(headers['content-type']);
  const encoding = headers['content-encoding']?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
    throw new DomainException('UnsupportedMediaType', 'This operation reads a body of UTF-8 JSON, uncompressed.', { field: 'Content-Encoding' });
  }
}

/**
 * A JSON body's declared charset, which must be UTF-8 (RFC 8259: JSON exchanged between systems
 * is UTF-8), else a 415: a body declared UTF-16 or UTF-7 would be decoded by body-parser and
 * judged on text its bytes do not show. Read with the parser body-parser reads it with, so a
 * `charset=` inside another parameter's quoted value cannot stand in for the real one. Answers
 * whether it was written `utf8`, the alias many clients send.
 */
export function checkJsonCharset(contentType: string | undefined): { alias: boolean } {
  let charset: string | undefined;
  try {
    charset = contentType === undefined ? undefined : parseContentType(contentType).parameters.charset?.toLowerCase();
  } catch {
    throw new DomainException('UnsupportedMediaType', 'The Content-Type header is not a media type this operation can read.', { field: 'Content-Type' });
  }
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new DomainException('UnsupportedMediaType', `The body's charset is ${charset.slice(0, 40) || 'empty'}; this operation reads UTF-8 JSON.`, { field: 'Content-Type' });
  }
  return { alias: charset === 'utf8' };
}

/** The Content-Type with its `utf8` charset written `utf-8`, the one name body-parser reads. */
export function withUtf8Charset(contentType: string): string {
  const parsed = parseContentType(contentType);
  return formatContentType({ type: parsed.type, parameters: { ...parsed.parameters, charset: 'utf-8' } });
}

/** Whether the request carries body bytes (an empty body with a Content-Type is no body). */
export function hasBody(headers: IncomingHttpHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * The framing checks Node's parser leaves to the server, run by each server's front after its
 * request's log line is set up: one Host header, required in HTTP/1.1 (RFC 9112 3.2; Node keeps
 * the first of several), and no transfer coding but chunked (RFC 9112 6.1: Node frames `gzip,
 * chunked` by its chunks and hands on the still-coded body, which would be misread). A refused
 * request's connection is closed after its answer: what follows its head cannot be trusted.
 */
export function checkFraming(request: IncomingMessage, response: ServerResponse): void {
  const refusal = framingRefusal(request);
  if (!refusal) return;
  response.setHeader('Connection', 'close');
  refusedFraming.add(request.socket);
  throw refusal;
}

/** Connections whose request checkFraming refused: that refusal is their answer. */
const refusedFraming = new WeakSet<object>();

/**
 * Whether the connection's request was refused by checkFraming. Node's parser fails a request
 * whose transfer coding does not end in chunked once it has handed on its head
 * (`HPE_INVALID_TRANSFER_ENCODING`), after checkFraming refused it: the server's client-error
 * answer would be a second one on the connection.
 */
export function framingRefused(socket: object): boolean {
  return refusedFraming.has(socket);
}

function framingRefusal(request: IncomingMessage): DomainException | undefined {
  if (request.headers.host === undefined) {
    if (request.httpVersion === '1.1') return new DomainException('MalformedRequest', 'An HTTP/1.1 request must carry a Host header.');
  } else if (headerLines(request.rawHeaders, 'host') > 1) {
    return new DomainException('MalformedRequest', 'A request must carry one Host header, not several.');
  }
  const coding = request.headers['transfer-encoding'];
  if (coding !== undefined && coding.trim().toLowerCase() !== 'chunked') {
    return new DomainException('TransferCodingNotImplemented', `Transfer-Encoding: ${coding.slice(0, 100)} is not supported; only chunked is.`, { field: 'Transfer-Encoding' });
  }
  return undefined;
}

/** How many lines of `rawHeaders` name the header `name` (lower case). */
function headerLines(rawHeaders: string[], name: string): number {
  let lines = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index].length === name.length && rawHeaders[index].toLowerCase() === name) lines += 1;
  }
  return lines;
}
