import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import { Errors } from '../catalog/errors.js';
import { PROBLEM_CONTENT_TYPE } from '../errors/problem.js';
import { ProblemDto } from '../api-docs/problem.dto.js';
import { IDEMPOTENCY_RETENTION_HOURS, MAX_REPLAYABLE_BODY_BYTES } from './idempotency-policy.js';
import { STORED_REPEATS_METADATA } from '../rate-limit/rate-limit.decorator.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_ROUTE_METADATA, IdempotencyInterceptor, type IdempotentRoute } from './idempotency.interceptor.js';

const problemContent = { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: `#/components/schemas/${ProblemDto.name}` } } };

/**
 * Makes a POST, PATCH or DELETE route honour the `Idempotency-Key` header (spec section 8): a
 * repeat within 24 hours from the same API key with the same key, method and path is not run
 * again; the first status and body are returned with `Idempotency-Replayed: true`.
 * - `sealResponse`: the answer carries a secret, so the stored copy is encrypted under SECRETS_KEY.
 * - `answersWithResult`: the handler's work is one tenant transaction, and it answers with what that
 *   transaction returns, unchanged. The claim is then sent with the transaction's BEGIN and the
 *   answer stored with its COMMIT, instead of each in a round trip of its own; a tenant statement
 *   before the transaction is refused, since the transaction's connection is held from the claim.
 * - `location`: the path of the resource the answer names, sent after PUBLIC_BASE_URL in
 *   `Location` (with or without a key); declared here rather than set by the handler so that it is
 *   known at the commit too.
 */
export function Idempotent<T = never>(options: { sealResponse?: boolean; answersWithResult?: boolean; location?: (result: T) => string } = {}): MethodDecorator {
  // A sealed answer is encrypted by the process, which the statement sent with the COMMIT does not do.
  if (options.sealResponse && options.answersWithResult) throw new Error('A sealed answer is stored after the commit: drop answersWithResult');
  const route: IdempotentRoute = {
    sealed: options.sealResponse === true,
    answersWithResult: options.answersWithResult === true,
    location: options.location as IdempotentRoute['location'],
  };
  return applyDecorators(
    SetMetadata(IDEMPOTENT_ROUTE_METADATA, route),
    SetMetadata(STORED_REPEATS_METADATA, true),
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: false,
      description:
        `Up to 255 printable ASCII characters chosen by the client. For ${IDEMPOTENCY_RETENTION_HOURS} hours a repeat from the same ` +
        'API key with the same key, method and path is not run again: the first status and body are returned with ' +
        '`Idempotency-Replayed: true`. Answers the operation gives with status 200-499 are kept, except 422 ' +
        `\`${Errors.InvalidReference.detailKey}\` and \`${Errors.InvalidInput.detailKey}\`; a 5xx is never kept, nor a refusal ` +
        'before the operation runs (authentication, the key lacking the route\'s scope, a body that is not JSON, too large or of ' +
        'another media type, an unsupported or sunset OH-Version, the general rate limit): a repeat is checked again. Request bodies ' +
        'are compared as JSON, member order ignored. An empty, longer or non-printable key, or two of these headers, gives 422 ' +
        `\`${Errors.IdempotencyKeyInvalid.detailKey}\`.`,
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    }),
    ApiResponse({
      status: 409,
      description:
        `Idempotency conflict (type \`{errors_url}/${Errors.IdempotencyBodyMismatch.type}\`): ` +
        `\`${Errors.IdempotencyBodyMismatch.detailKey}\` when the key was used with a different body or query string; ` +
        `\`${Errors.IdempotencyInProgress.detailKey}\` while the first request with this key is still running; ` +
        `\`${Errors.IdempotencyReplayUnavailable.detailKey}\` when the request ran but its response cannot be replayed: it exceeded ` +
        `${MAX_REPLAYABLE_BODY_BYTES / 1024} KiB, or the process answering stopped after saving the change and before keeping the answer ` +
        '(the request is never run twice; read the resource for its result).',
      content: problemContent,
    }),
  );
}
