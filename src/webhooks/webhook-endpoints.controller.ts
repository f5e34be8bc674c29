import { Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Res } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { type AuthContext, CurrentAuth } from '../platform/auth/auth-context.js';
import { RequireScopes } from '../platform/route-access/require-scopes.decorator.js';
import { Errors } from '../platform/catalog/errors.js';
import { Scope } from '../platform/catalog/scopes.js';
import { AppConfig } from '../platform/config/app-config.js';
import { Idempotent } from '../platform/idempotency/idempotent.decorator.js';
import { ProblemDto } from '../platform/api-docs/problem.dto.js';
import { ApiProblem, detailKey } from '../platform/api-docs/api-problem-responses.decorator.js';
import { UuidPipe } from '../platform/validation/uuid.pipe.js';
import { ValidBody } from '../platform/validation/validated-body.js';
import { CreateWebhookEndpointDto, NoBodyDto, UpdateWebhookEndpointDto } from './dto/webhook-endpoint-input.dto.js';
import {
  WebhookEndpointDto,
  WebhookEndpointListDto,
  WebhookEndpointWithSecretDto,
} from './dto/webhook-endpoint.dto.js';
import type { WebhookEndpoint } from './webhook-endpoint.entity.js';
import { type EndpointWithSecret, WebhookEndpointsService } from './webhook-endpoints.service.js';
import { MAX_ENDPOINTS_PER_COMPANY } from './webhook-endpoint-state.js';

const ID_PARAM = ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' }, description: 'A UUID; anything else is 422 `invalid_input`.' });


const NOT_FOUND = ApiProblem(
  404,
  `${detailKey('WebhookEndpointNotFound')}: no such endpoint for this key (another key's endpoint answers the same unless the caller holds \`int:*\`); ` +
    `${detailKey('TenantNotFound')} when the company is inactive.`,
);
const BODY_422 = (extra: string) =>
  ApiProblem(
    422,
    `${detailKey('WebhookUnknownField')} (an unknown member; \`field\` names the first, \`errors\` all) → ${detailKey('WebhookValidationFailed')} ` +
      `(wrong types, blank name, empty or non-string event_types, unsupported or sunset pinned_version; see \`errors\`) → ${extra}` +
      ` A malformed path id is ${detailKey('InvalidInput')}.`,
    {
      title: 'Unknown event type',
      status: 422,
      detail: 'Not in the event catalogue: "fin.invoice.deleted". GET /v1/event_types lists the types.',
      detail_key: Errors.WebhookUnknownEventType.detailKey,
      code: 'unknown_event_type',
      field: 'event_types',
      unknown_event_types: ['fin.invoice.deleted'],
    },
  );
const SUBSCRIPTION_403 = ApiProblem(
  403,
  `${detailKey('MissingScope')}: the key lacks \`int:webhooks:manage\`, or the read scope of a subscribed family (a write scope counts; \`*\` and ` +
    'types without a read endpoint need `int:*`; identity and messaging events their support-granted scopes). `missing_scope` names the ' +
    'first, `missing_scopes` lists all when several are missing.',
  {
    title: 'The API key lacks a required scope',
    status: 403,
    detail: `Subscribing to these event types needs the scopes ${Scope.FinInvoicesRead}, ${Scope.HrEmployeesRead}.`,
    detail_key: Errors.MissingScope.detailKey,
    missing_scope: Scope.FinInvoicesRead,
    missing_scopes: [Scope.FinInvoicesRead, Scope.HrEmployeesRead],
  },
);
const QUOTA_429 = ApiProblem(
  429,
  `${detailKey('WebhookQuotaExceeded')} (code \`quota_exceeded\`, no \`Retry-After\`): the company already has ${MAX_ENDPOINTS_PER_COMPANY} active or paused endpoints; delete one first.`,
);
const OWNER_409 = ApiProblem(409, `${detailKey('WebhookOwnerKeyInactive')}: the owning API key is revoked, expired or deleted.`);

@ApiTags('Webhook endpoints')
@ApiExtraModels(ProblemDto)
@Controller('v1/webhook_endpoints')
export class WebhookEndpointsController {
  constructor(
    @Inject(WebhookEndpointsService) private readonly endpoints: WebhookEndpointsService,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  @Get()
  @RequireScopes(Scope.WebhooksManage)
  @ApiOperation({
    summary: 'List webhook endpoints',
    description:
      'Every endpoint created by the calling key (every endpoint of the company for an `int:*` key), deleted ones included ' +
      '(`disabled`, `user_deleted`), newest first. Not paginated: a company holds few endpoints.',
  })
  @ApiOkResponse({ type: WebhookEndpointListDto })
  async list(@CurrentAuth() auth: AuthContext): Promise<WebhookEndpointListDto> {
    return { data: await this.endpoints.represent(await this.endpoints.list(auth)) };
  }

  @Post()
  @HttpCode(201)
  @RequireScopes(Scope.WebhooksManage)
  @Idempotent({ sealResponse: true })
  @ApiOperation({
    summary: 'Create a webhook endpoint',
    description:
      'Registers a receiver for the listed event types; it receives only events occurring after its creation. The answer is the only ' +
      'time the signing secret is shown. Checks in order: body → event types (`unknown_event_type`, then the scopes: 403) → ' +
      '`pinned_version` → URL (`url_not_publicly_routable`) → quota (429). At most 5 active or paused endpoints per company.',
  })
  @ApiBody({
    type: CreateWebhookEndpointDto,
    examples: {
      invoices: { value: { name: 'ERP invoice sync', url: 'https://erp.example.com/hooks/integrations', event_types: ['fin.invoice.created', 'fin.invoice.paid'] } },
      pinned: { value: { name: 'Fleet', url: 'https://fleet.example.com/oh', event_types: ['fm.vehicle.updated'], pinned_version: '2026-05-16' } },
    },
  })
  @ApiCreatedResponse({
    type: WebhookEndpointWithSecretDto,
    description: 'The new endpoint, active, with its signing secret.',
    headers: { Location: { description: 'URL of the new endpoint.', schema: { type: 'string', format: 'uri' } } },
  })
  @BODY_422(`${detailKey('WebhookUnknownEventType')} (\`unknown_event_types\` lists exactly the offenders) → ${detailKey('WebhookUrlNotPubliclyRoutable')} (\`https://\` only, no credentials, no IP address, every A record public, name resolvable).`)
  @SUBSCRIPTION_403
  @QUOTA_429
  async create(
    @CurrentAuth() auth: AuthContext,
    @ValidBody(CreateWebhookEndpointDto) body: CreateWebhookEndpointDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<WebhookEndpointWithSecretDto> {
    const created = await this.endpoints.create(auth, body);
    response.setHeader('Location', `${this.config.publicBaseUrl}/v1/webhook_endpoints/${created.endpoint.id}`);
    return this.withSecret(created);
  }

  @Get(':id')
  @RequireScopes(Scope.WebhooksManage)
  @ID_PARAM
  @ApiOperation({ summary: 'Retrieve a webhook endpoint', description: 'Deleted endpoints are still returned (`disabled`, `user_deleted`). Never shows the secret.' })
  @ApiOkResponse({ type: WebhookEndpointDto })
  @NOT_FOUND
  @ApiProblem(422, `${detailKey('InvalidInput')}: the id is not a UUID.`)
  async get(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string): Promise<WebhookEndpointDto> {
    return this.presentOne(await this.endpoints.findOwned(auth, id));
  }

  @Patch(':id')
  @RequireScopes(Scope.WebhooksManage)
  @Idempotent()
  @ID_PARAM
  @ApiOperation({
    summary: 'Change a webhook endpoint',
    description:
      'Changes `name`, `url`, `event_types` and `pinned_version` (null unpins), checked as on create. Works on active, paused and ' +
      'auto-disabled endpoints; a deleted one answers 404. A new `url` or a different set of `event_types` withdraws the ' +
      'personal-data permission (`pii_enabled` false). A body naming none of the members is `validation_failed` (code ' +
      '`no_writable_fields`); values equal to the current ones change nothing. An `int:*` key changing another key\'s endpoint may ' +
      'subscribe it only to types that key can receive: events are delivered as far as the owner\'s scopes reach, so another type is ' +
      `403 ${detailKey('MissingScope')} naming what the owner lacks.`,
  })
  @ApiBody({ type: UpdateWebhookEndpointDto, examples: { rename: { value: { name: 'ERP (production)' } }, move: { value: { url: 'https://erp2.example.com/hooks' } } } })
  @ApiOkResponse({ type: WebhookEndpointDto })
  @BODY_422(`${detailKey('WebhookUnknownEventType')} → ${detailKey('WebhookUrlNotPubliclyRoutable')}.`)
  @SUBSCRIPTION_403
  @NOT_FOUND
  async update(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string, @ValidBody(UpdateWebhookEndpointDto) body: UpdateWebhookEndpointDto): Promise<WebhookEndpointDto> {
    return this.presentOne(await this.endpoints.update(auth, id, body));
  }

  @Delete(':id')
  @RequireScopes(Scope.WebhooksManage)
  @Idempotent()
  @ID_PARAM
  @ApiOperation({
    summary: 'Delete a webhook endpoint',
    description:
      'Sets `disabled` with `disabled_reason` `user_deleted` and frees its quota place. The record stays listed and readable but can ' +
      'never be changed or revived: pause, resume, rotate_secret, PATCH and DELETE then answer 404. A repeat with the same ' +
      '`Idempotency-Key` replays the first 200. No body.',
  })
  @ApiOkResponse({ type: WebhookEndpointDto, description: 'The endpoint as deleted.' })
  @NOT_FOUND
  @ApiProblem(422, `${detailKey('InvalidInput')} (id not a UUID); ${detailKey('WebhookUnknownField')} (a body member).`)
  async remove(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string, @ValidBody(NoBodyDto) _body: NoBodyDto): Promise<WebhookEndpointDto> {
    return this.presentOne(await this.endpoints.remove(auth, id));
  }

  @Post(':id/rotate_secret')
  @HttpCode(200)
  @RequireScopes(Scope.WebhooksManage)
  @Idempotent({ sealResponse: true })
  @ID_PARAM
  @ApiOperation({
    summary: 'Rotate the signing secret',
    description:
      'Issues a new secret, shown only in this answer. For 24 hours (`previous_secret_expires_at`) deliveries carry signatures with ' +
      'both the new and the previous secret, so receivers can switch without losing events. No body.',
  })
  @ApiOkResponse({ type: WebhookEndpointWithSecretDto })
  @NOT_FOUND
  @ApiProblem(422, `${detailKey('InvalidInput')} (id not a UUID); ${detailKey('WebhookUnknownField')} (a body member).`)
  async rotateSecret(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string, @ValidBody(NoBodyDto) _body: NoBodyDto): Promise<WebhookEndpointWithSecretDto> {
    return this.withSecret(await this.endpoints.rotateSecret(auth, id));
  }

  @Post(':id/pause')
  @HttpCode(200)
  @RequireScopes(Scope.WebhooksManage)
  @Idempotent()
  @ID_PARAM
  @ApiOperation({
    summary: 'Pause a webhook endpoint',
    description:
      'active → paused: events occurring while paused are not queued for it, and queued deliveries fail with `endpoint_disabled`. ' +
      'Pausing a paused endpoint changes nothing (its `disabled_reason` stays). Pausing an auto-disabled endpoint makes it paused ' +
      'and takes a quota place again (429 when there is no room). No body.',
  })
  @ApiOkResponse({ type: WebhookEndpointDto })
  @NOT_FOUND
  @QUOTA_429
  @ApiProblem(422, `${detailKey('InvalidInput')} (id not a UUID); ${detailKey('WebhookUnknownField')} (a body member).`)
  async pause(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string, @ValidBody(NoBodyDto) _body: NoBodyDto): Promise<WebhookEndpointDto> {
    return this.presentOne(await this.endpoints.pause(auth, id));
  }

  @Post(':id/resume')
  @HttpCode(200)
  @RequireScopes(Scope.WebhooksManage)
  @Idempotent()
  @ID_PARAM
  @ApiOperation({
    summary: 'Resume a webhook endpoint',
    description:
      'paused → active when the owning key is neither revoked, expired nor deleted (409 otherwise). An auto-disabled endpoint ' +
      'needs that and a free quota place (429). Resuming an active endpoint changes nothing. No body.',
  })
  @ApiOkResponse({ type: WebhookEndpointDto })
  @NOT_FOUND
  @OWNER_409
  @QUOTA_429
  @ApiProblem(422, `${detailKey('InvalidInput')} (id not a UUID); ${detailKey('WebhookUnknownField')} (a body member).`)
  async resume(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string, @ValidBody(NoBodyDto) _body: NoBodyDto): Promise<WebhookEndpointDto> {
    return this.presentOne(await this.endpoints.resume(auth, id));
  }

  private async presentOne(endpoint: WebhookEndpoint): Promise<WebhookEndpointDto> {
    const [dto] = await this.endpoints.represent([endpoint]);
    return dto;
  }

  private async withSecret({ endpoint, secret }: EndpointWithSecret): Promise<WebhookEndpointWithSecretDto> {
    return { ...(await this.presentOne(endpoint)), secret };
  }
}
