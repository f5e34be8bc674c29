import type { BodyRules } from '../../platform/validation/validated-body.js';

/**
 * How webhook endpoint bodies are answered: an unknown member first (422 `unknown_field`, `field`
 * naming the first, `errors` all of them), then every other fault at once (422
 * `validation_failed` with `errors`).
 */
export const WEBHOOK_BODY_RULES: BodyRules = {
  invalidBody: 'WebhookValidationFailed',
  unknownField: 'WebhookUnknownField',
  problems: [{ error: 'WebhookUnknownField', field: true }, { error: 'WebhookValidationFailed' }],
};

/** For `@ValidateIf`: an optional member is checked when sent, `null` included (which `@IsOptional` would let through). */
export const present = (_: object, value: unknown) => value !== undefined;
