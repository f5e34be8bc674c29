import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { SUPPORTED_API_VERSIONS } from '../../platform/versioning/api-version.js';
import { Checks, ValidatedBody } from '../../platform/validation/validated-body.js';
import { present, WEBHOOK_BODY_RULES } from './webhook-body-rules.js';

const MAX_NAME_LENGTH = 200;
export const MAX_URL_LENGTH = 2048;
const MAX_EVENT_TYPES = 200;

const NOT_BLANK = /\S/;

const NAME = { description: 'A label for people, 1-200 characters, not blank.', example: 'ERP invoice sync', minLength: 1, maxLength: MAX_NAME_LENGTH };
const URL_DOC = {
  description:
    '`https://` only (`http://` only where the operator set WEBHOOK_ALLOW_HTTP), no credentials, a host name (never an IP address in ' +
    'any notation) whose every A record is public (spec 6.9). Read as a WHATWG URL, so not only RFC 3986 URIs: stored and called in its ' +
    'normalised form (`url.href`; a space becomes `%20`).',
  example: 'https://erp.example.com/hooks/integrations',
  maxLength: MAX_URL_LENGTH,
};
const EVENT_TYPES_DOC = {
  type: String,
  isArray: true,
  minItems: 1,
  maxItems: MAX_EVENT_TYPES,
  description:
    'Exact types of `GET /v1/event_types`, or `["*"]` for every type (needs `int:*`). Repeats are dropped. Each type needs the read ' +
    'scope of its family (a write scope counts); types without a read endpoint need `int:*`.',
  example: ['fin.invoice.created', 'fin.invoice.paid'],
};
const PINNED_VERSION_DOC = {
  type: String,
  nullable: true,
  enum: [...SUPPORTED_API_VERSIONS],
  description: 'API version whose payload shapes deliveries use; a supported version that is not sunset. null: unpinned (the current version).',
  example: SUPPORTED_API_VERSIONS[0],
};

const nameRules = Checks(
  IsString(),
  Matches(NOT_BLANK, { context: { code: 'required', message: '$path must not be blank' } }),
  MaxLength(MAX_NAME_LENGTH),
);
const urlRules = Checks(IsString(), MaxLength(MAX_URL_LENGTH));
const eventTypeRules = Checks(
  IsArray(),
  ArrayMinSize(1, { context: { message: '$path must name at least one event type' } }),
  ArrayMaxSize(MAX_EVENT_TYPES),
  IsString({ each: true }),
);
const pinnedVersionRules = IsIn([...SUPPORTED_API_VERSIONS], {
  context: { code: 'unsupported_version', message: `$path must be a supported API version: ${SUPPORTED_API_VERSIONS.join(', ')}` },
});

@ValidatedBody(WEBHOOK_BODY_RULES)
export class CreateWebhookEndpointDto {
  @ApiProperty(NAME)
  @nameRules
  name: string;

  @ApiProperty(URL_DOC)
  @urlRules
  url: string;

  @ApiProperty(EVENT_TYPES_DOC)
  @eventTypeRules
  event_types: string[];

  @ApiPropertyOptional(PINNED_VERSION_DOC)
  @IsOptional()
  @pinnedVersionRules
  pinned_version?: string | null;
}

/** Only the members to change; `pinned_version: null` unpins. Other members are not null. */
@ValidatedBody(WEBHOOK_BODY_RULES)
export class UpdateWebhookEndpointDto {
  @ApiPropertyOptional(NAME)
  @ValidateIf(present)
  @nameRules
  name?: string;

  @ApiPropertyOptional({ ...URL_DOC, description: `${URL_DOC.description} Changing it withdraws the personal-data permission.` })
  @ValidateIf(present)
  @urlRules
  url?: string;

  @ApiPropertyOptional({ ...EVENT_TYPES_DOC, description: `${EVENT_TYPES_DOC.description} Changing them withdraws the personal-data permission.` })
  @ValidateIf(present)
  @eventTypeRules
  event_types?: string[];

  @ApiPropertyOptional(PINNED_VERSION_DOC)
  @IsOptional()
  @pinnedVersionRules
  pinned_version?: string | null;
}

/** The routes of an endpoint and its deliveries that take no body (DELETE, pause, resume, rotate_secret, retry, replay, replay_failed): any member is 422 `unknown_field`. */
@ValidatedBody({ ...WEBHOOK_BODY_RULES, optional: true })
export class NoBodyDto {}
