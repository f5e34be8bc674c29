import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';

export interface OpenApiRepresentation {
  body: Buffer;
  etag: string;
  encoding?: 'gzip';
}

/**
 * The OpenAPI document as served: serialised once at start, gzipped once, each representation
 * with a strong ETag derived from the SHA-256 of the JSON bytes (the gzip one suffixed, since
 * its bytes differ). Every request gets these exact bytes.
 */
@Injectable()
export class OpenApiPublication {
  private identity?: OpenApiRepresentation;
  private gzip?: OpenApiRepresentation;
  private published?: OpenAPIObject;

  publish(document: OpenAPIObject): void {
    this.published = document;
    const body = Buffer.from(JSON.stringify(document), 'utf8');
    const hash = createHash('sha256').update(body).digest('base64url');
    this.identity = { body, etag: `"${hash}"` };
    this.gzip = { body: gzipSync(body, { level: 9 }), etag: `"${hash}-gzip"`, encoding: 'gzip' };
  }

  representation(gzip: boolean): OpenApiRepresentation {
    const chosen = gzip ? this.gzip : this.identity;
    if (!chosen) throw new Error('the OpenAPI document has not been published');
    return chosen;
  }

  /** The document as an object, for what is derived from it (the event catalogue's schemas). */
  document(): OpenAPIObject {
    if (!this.published) throw new Error('the OpenAPI document has not been published');
    return this.published;
  }
}
