import type { EventEnvelope } from '../../platform/events/event-envelope.js';
import { CURRENT_API_VERSION } from '../../platform/versioning/api-version.js';

/**
 * The body a receiver gets: `{id, type, created_at, api_version, data}`, and `test: true` before
 * `data` on a test event. `id` is the event's id (also the `Idempotency-Key` and `webhook-id`
 * headers, and the same for every attempt and replay), `api_version` the version the body is
 * shaped by: the endpoint's `pinned_version`, else the version current when the event was
 * fanned out.
 *
 * One renderer per supported version; today there is one version, whose shape is the stored
 * envelope. A future version adds its renderer here, and endpoints pinned to the old one keep
 * their shape.
 */
const RENDERERS: Readonly<Record<string, (event: EventEnvelope) => Record<string, unknown>>> = {
  [CURRENT_API_VERSION]: (event) => ({
    id: event.id,
    type: event.type,
    created_at: event.created_at,
    api_version: CURRENT_API_VERSION,
    ...(event.test ? { test: true } : {}),
    data: event.data,
  }),
};

/** The version a new delivery to an endpoint is rendered in. */
export function deliveryApiVersion(pinnedVersion: string | null): string {
  return pinnedVersion !== null && Object.hasOwn(RENDERERS, pinnedVersion) ? pinnedVersion : CURRENT_API_VERSION;
}

/** The body of a delivery as an object: also the item of the events feed (GET /v1/events). */
export function renderEvent(event: EventEnvelope, apiVersion: string): Record<string, unknown> {
  const render = RENDERERS[apiVersion] ?? RENDERERS[CURRENT_API_VERSION];
  return render(event);
}

/** The exact body bytes (as a string) of a delivery; the same event and version always give the same body. */
export function renderEnvelope(event: EventEnvelope, apiVersion: string): string {
  return JSON.stringify(renderEvent(event, apiVersion));
}
