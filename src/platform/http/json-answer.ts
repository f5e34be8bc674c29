import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Writes a handler's answer as `res.json` writes it for this API (no ETag, no freshness check, no
 * JSON settings), minus its generic work: express parses and rebuilds the Content-Type to add a
 * charset, and copies every body over 1,000 characters into a Buffer before writing it, where
 * Node writes the text with its headers in one go (a list page is 40-60 KB). Answers false, and
 * writes nothing, where express has more to do: a Content-Type already set, a status whose
 * answer has no body (204, 205, 304), or a body JSON makes nothing of (a `toJSON` answering undefined).
 */
export function answerJson(response: ServerResponse<IncomingMessage>, body: object, statusCode: number | undefined): boolean {
  const status = statusCode ?? response.statusCode;
  if (status === 204 || status === 205 || status === 304 || response.hasHeader('content-type')) return false;
  const text = JSON.stringify(body) as string | undefined;
  if (text === undefined) return false;
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.setHeader('Content-Length', Buffer.byteLength(text));
  // Written before the body: `end` on a response whose head is not yet written measures the body
  // again (a list page's 45 KB walked twice to count its UTF-8 bytes).
  response.writeHead(status);
  if (response.req.method === 'HEAD') response.end();
  else response.end(text);
  return true;
}
