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
 * The OpenAPI document as served: built, serialised and gzipped once, each representation with
 * a strong ETag derived from the SHA-256 of the JSON bytes (the gzip one suffixed, since its
 * bytes differ). Every request gets these exact bytes. Each is made when first asked for, not at
 * start: building the document walks every controller and DTO (about 150 ms of CPU, more on a
 * loaded machine), which a process that never serves it, as most never do, need not pay.
 */
@Injectable()
export class OpenApiPublication {
  private build?: () => OpenAPIObject;
  private published?: OpenAPIObject;
  private identity?: OpenApiRepresentation;
  private gzip?: OpenApiRepresentation;

  /** `build` makes the document on its first use. */
  publish(build: () => OpenAPIObject): void {
    this.build = build;
  }

  representation(gzip: boolean): OpenApiRepresentation {
    if (!this.identity) {
      const body = Buffer.from(JSON.stringify(this.document()), 'utf8');
      this.identity = { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
    }
    if (!gzip) return this.identity;
    this.gzip ??= { body: gzipSync(this.identity.body, { level: 9 }), etag: `${this.identity.etag.slice(0, -1)}-gzip"`, encoding: 'gzip' };
    return this.gzip;
  }

  /** The document as an object, for what is derived from it (the event catalogue's schemas). */
  document(): OpenAPIObject {
    if (!this.build) throw new Error('the OpenAPI document has not been published');
    this.published ??= this.build();
    return this.published;
  }
}
