import { jest } from '@jest/globals';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { OpenAPIObject } from '@nestjs/swagger';
import { OpenApiPublication } from './openapi-publication.js';

describe('OpenApiPublication', () => {
  const document = { openapi: '3.1.0', info: { title: 'Integrations API', version: '2026-05-16' }, paths: {} } as OpenAPIObject;

  it('builds the document on its first use, not when published, and once however often it is asked for', () => {
    const build = jest.fn(() => document);
    const publication = new OpenApiPublication();
    publication.publish(build);
    expect(build).not.toHaveBeenCalled();
    expect(publication.document()).toBe(document);
    publication.representation(false);
    publication.representation(true);
    expect(publication.document()).toBe(document);
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('serves the same bytes each time, each encoding with its own strong ETag', () => {
    const publication = new OpenApiPublication();
    publication.publish(() => document);
    const identity = publication.representation(false);
    const gzip = publication.representation(true);
    const json = Buffer.from(JSON.stringify(document), 'utf8');
    expect(identity.body.equals(json)).toBe(true);
    expect(identity.etag).toBe(`"${createHash('sha256').update(json).digest('base64url')}"`);
    expect(gunzipSync(gzip.body).equals(json)).toBe(true);
    expect(gzip).toMatchObject({ etag: identity.etag.replace(/"$/, '-gzip"'), encoding: 'gzip' });
    expect(publication.representation(true)).toBe(gzip);
    expect(publication.representation(false)).toBe(identity);
  });

  it('says so when asked before anything was published', () => {
    expect(() => new OpenApiPublication().representation(false)).toThrow('has not been published');
  });
});
