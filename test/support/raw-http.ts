import type { INestApplication } from '@nestjs/common';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The bytes on the wire, not decompressed. */
  body: Buffer;
}

/**
 * One HTTP request with exactly the given headers (a flat name, value, name, value… list may
 * repeat a header), answered with the raw body bytes.
 */
export function rawRequest(
  app: INestApplication,
  method: string,
  path: string,
  headers: Record<string, string> | string[] = {},
  body?: Buffer | string,
): Promise<RawResponse> {
  const { port } = app.getHttpServer().address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
