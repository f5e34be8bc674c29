import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiProblem, detailKey } from '../api-docs/api-problem-responses.decorator.js';
import { ERRORS_URL } from '../api-docs/problem.dto.js';
import { DOCS_PATH, PROBLEM_TYPES_PATH } from '../api-docs/docs-path.js';
import { Errors, PROBLEM_TYPES, type ProblemType, RESOURCE_KEY, resourceErrors } from '../catalog/errors.js';
import { AppConfig } from '../config/app-config.js';
import { DomainException } from '../errors/domain.exception.js';
import { Public } from '../route-access/require-scopes.decorator.js';
import { DOCUMENTATION_CACHE_CONTROL } from './openapi.controller.js';
import { OpenApiPublication } from './openapi-publication.js';

/** The admin CLI's errors go to its stderr, never into an HTTP answer. */
const CLI_ONLY_PREFIX = 'errors.admin.';

const PAGE_HEADERS = {
  'Cache-Control': { description: `\`${DOCUMENTATION_CACHE_CONTROL}\``, schema: { type: 'string' } },
  Vary: { description: '`Accept`: HTML or JSON by the request\'s `Accept`.', schema: { type: 'string' } },
};

const CATALOGUE_KEYS = Object.values(Errors).filter((entry) => !entry.detailKey.startsWith(CLI_ONLY_PREFIX));

interface DetailKeyDoc {
  detail_key: string;
  status: number;
  title: string;
  code?: string;
}

interface ProblemTypeDoc {
  type: string;
  title: string;
  description: string;
  detail_keys: DetailKeyDoc[];
}

/**
 * What a problem's `type` URL answers (RFC 9457 §3.1.1: a type URI should document the type when
 * dereferenced). `{errors_url}` defaults to `{base_url}/errors`, so these routes make every
 * `type` an error's reader meets a page, in HTML for a browser and JSON for everything else.
 */
@ApiTags('Specification')
@Controller(PROBLEM_TYPES_PATH)
export class ProblemTypesController {
  private built?: ReadonlyMap<string, ProblemTypeDoc>;

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(OpenApiPublication) private readonly publication: OpenApiPublication,
  ) {}

  /**
   * Built at the first request, from the published document: the readable resources' own keys
   * (`errors.integrations.invoices.not_found`, …) are those its operations name, so the pages
   * list the keys a client meets, not a pattern of them.
   */
  private get types(): ReadonlyMap<string, ProblemTypeDoc> {
    if (this.built) return this.built;
    // Exactly the keys the document names: a catalogued key (webhooks' not_found) matches the pattern too, without its resource's other key.
    const named = new Set([...JSON.stringify(this.publication.document()).matchAll(RESOURCE_KEY)].map(([key]) => key.slice(1, -1)));
    const catalogued = new Set(CATALOGUE_KEYS.map((entry) => entry.detailKey));
    const ofResources = [...named]
      .filter((key) => !catalogued.has(key))
      .sort()
      .flatMap((key) => Object.values(resourceErrors(key.split('.')[2])).filter((entry) => entry.detailKey === key));
    const keys = [...CATALOGUE_KEYS, ...ofResources];
    this.built = new Map(
      (Object.keys(PROBLEM_TYPES) as ProblemType[]).map((slug) => [
        slug,
        {
          type: `${this.config.errorsBaseUrl}/${slug}`,
          ...PROBLEM_TYPES[slug],
          detail_keys: keys
            .filter((entry) => entry.type === slug)
            .map(({ detailKey: key, status, title, code }) => (code === undefined ? { detail_key: key, status, title } : { detail_key: key, status, title, code })),
        },
      ]),
    );
    return this.built;
  }

  @Get()
  @Public()
  @ApiOperation({
    summary: 'The problem types',
    description: 'Needs no API key. Every problem `type` this API answers with, and the `detail_key` values each carries. HTML when the request prefers it, JSON otherwise.',
  })
  @ApiOkResponse({
    description: 'The problem types.',
    headers: PAGE_HEADERS,
    content: {
      'application/json': { schema: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: problemTypeSchema() } } } },
      'text/html': { schema: { type: 'string' } },
    },
  })
  list(@Req() request: Request, @Res() response: Response): void {
    const all = [...this.types];
    this.answer(request, response, { data: all.map(([, doc]) => doc) }, () => page('Problem types', all.map(([slug, doc]) => section(slug, doc)).join('')));
  }

  @Get(':type')
  @Public()
  @ApiParam({ name: 'type', schema: { type: 'string', enum: Object.keys(PROBLEM_TYPES) }, description: 'The last segment of a problem `type` URL.' })
  @ApiOperation({
    summary: 'One problem type',
    description: 'Needs no API key. What a problem `type` URL answers: the type, what it covers, and the `detail_key` values that carry it. HTML when the request prefers it, JSON otherwise.',
  })
  @ApiOkResponse({ description: 'The problem type.', headers: PAGE_HEADERS, content: { 'application/json': { schema: problemTypeSchema() }, 'text/html': { schema: { type: 'string' } } } })
  @ApiProblem(404, `${detailKey('RouteNotFound')}: no problem type of that name.`)
  one(@Param('type') slug: string, @Req() request: Request, @Res() response: Response): void {
    const found = this.types.get(slug);
    if (!found) throw new DomainException('RouteNotFound', 'No problem type of that name. GET /errors lists them.');
    this.answer(request, response, found, () => page(found.title, section(slug, found)));
  }

  private answer(request: Request, response: Response, json: object, html: () => string): void {
    response.setHeader('Cache-Control', DOCUMENTATION_CACHE_CONTROL);
    response.setHeader('Vary', 'Accept');
    if (request.accepts(['application/json', 'text/html']) === 'text/html') response.status(200).type('text/html').send(html());
    else response.status(200).json(json);
  }
}

function problemTypeSchema() {
  return {
    type: 'object',
    required: ['type', 'title', 'description', 'detail_keys'],
    properties: {
      type: { type: 'string', format: 'uri', example: `${ERRORS_URL}/validation` },
      title: { type: 'string', example: PROBLEM_TYPES.validation.title },
      description: { type: 'string' },
      detail_keys: {
        type: 'array',
        items: {
          type: 'object',
          required: ['detail_key', 'status', 'title'],
          properties: {
            detail_key: { type: 'string', example: Errors.InvoiceValidationFailed.detailKey },
            status: { type: 'integer', example: 422 },
            title: { type: 'string', example: Errors.InvoiceValidationFailed.title },
            code: { type: 'string', description: 'The `code` member answers of this key carry by default.' },
          },
        },
      },
    },
  };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function section(slug: string, doc: ProblemTypeDoc): string {
  const rows = doc.detail_keys
    .map((entry) => `<tr><td><code>${escapeHtml(entry.detail_key)}</code></td><td>${entry.status}</td><td>${escapeHtml(entry.title)}</td><td>${entry.code ? `<code>${escapeHtml(entry.code)}</code>` : ''}</td></tr>`)
    .join('');
  return (
    `<section><h2 id="${slug}">${escapeHtml(doc.title)}</h2><p><code>${escapeHtml(doc.type)}</code></p>` +
    `<p>${escapeHtml(doc.description)}</p><table><thead><tr><th>detail_key</th><th>status</th><th>title</th><th>code</th></tr></thead><tbody>${rows}</tbody></table></section>`
  );
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}<p><a href="/${DOCS_PATH}">API reference</a></p></body></html>`;
}
