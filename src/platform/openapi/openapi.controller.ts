import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../route-access/require-scopes.decorator.js';
import { ifNoneMatchHits } from './conditional-get.js';
import { OpenApiPublication } from './openapi-publication.js';

/** What the published documentation answers may be cached for: the specification's 5 minutes (spec section 8). */
export const DOCUMENTATION_CACHE_CONTROL = 'public, max-age=300';

@ApiTags('Specification')
@Controller('v1')
export class OpenApiController {
  constructor(@Inject(OpenApiPublication) private readonly publication: OpenApiPublication) {}

  @Get('openapi.json')
  @Public()
  @ApiOperation({
    summary: 'This OpenAPI 3.1 document',
    description:
      'Needs no API key. Cached for 5 minutes (`Cache-Control: public, max-age=300`), gzip-encoded when the request accepts it, and answered 304 with no body when `If-None-Match` names the `ETag` of the representation chosen (weak comparison; `*` and lists are understood; the other encoding\'s tag is a 200).',
  })
  @ApiOkResponse({
    description: 'The document.',
    headers: {
      ETag: { description: 'Strong entity tag of this representation (`-gzip` suffix when gzip-encoded).', schema: { type: 'string' } },
      'Cache-Control': { description: '`public, max-age=300`', schema: { type: 'string' } },
      Vary: { description: '`Accept-Encoding`', schema: { type: 'string' } },
      'Content-Encoding': { description: '`gzip` when the request accepts it.', schema: { type: 'string' } },
    },
    content: { 'application/json': { schema: { type: 'object', description: 'An OpenAPI 3.1 document.' } } },
  })
  @ApiResponse({
    status: 304,
    description: 'Not modified: `If-None-Match` names the current document in the encoding chosen. No body.',
    headers: {
      ETag: { description: 'The current entity tag.', schema: { type: 'string' } },
      'Cache-Control': { description: '`public, max-age=300`', schema: { type: 'string' } },
      Vary: { description: '`Accept-Encoding`', schema: { type: 'string' } },
    },
  })
  serve(@Req() request: Request, @Res() response: Response): void {
    const chosen = this.publication.representation(request.acceptsEncodings('gzip', 'identity') === 'gzip');
    response.setHeader('ETag', chosen.etag);
    response.setHeader('Cache-Control', DOCUMENTATION_CACHE_CONTROL);
    response.setHeader('Vary', 'Accept-Encoding');
    // Compared with the tag of the encoding chosen (RFC 9110 13.1.2): a 304 answers for that one,
    // and a cache that holds the other could not use it.
    if (ifNoneMatchHits(request.headers['if-none-match'], [chosen.etag])) {
      response.status(304).end();
      return;
    }
    response.status(200).type('application/json');
    if (chosen.encoding) response.setHeader('Content-Encoding', chosen.encoding);
    response.setHeader('Content-Length', chosen.body.length);
    response.end(chosen.body);
  }
}
