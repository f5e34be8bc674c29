import { Injectable } from '@nestjs/common';
import { grants, type Scope } from '../catalog/scopes.js';

/** Everything an agent-tool call is decided on, read fresh for each request. */
export interface ToolCaller {
  /** Tool names the token was issued for, or `['*']`. */
  readonly tools: readonly string[];
  /** The current permissions of the person who created the token. */
  readonly permissions: readonly string[];
}

export type ToolRefusal = 'tool_not_granted' | 'permission_withdrawn';

/** The owning key of a webhook endpoint, as it stands when an event is delivered. */
export interface EventSubscriber {
  readonly scopes: readonly string[];
  /** `active`, or why the key no longer receives anything. */
  readonly keyState: 'active' | 'revoked' | 'expired' | 'deleted';
  /** Whether support enabled the endpoint for personal data. */
  readonly personalDataGranted: boolean;
}

/** The catalogue facts about one event type that decide who may receive it. */
export interface EventEntitlementRule {
  readonly scope: Scope;
  readonly personalData: boolean;
}

export type EventRefusal = 'api_key_inactive' | 'api_key_scope_insufficient' | 'pii_capability_blocked';

/**
 * The one answer to "may this caller see this": REST scopes of API keys, agent-tool tokens with
 * their person's permissions, and per-event webhook entitlement. Pure decisions over facts the
 * caller loads (fresh, never cached), so every process decides alike and nothing goes stale.
 */
@Injectable()
export class AccessService {
  /** The scopes of `required` that the held scopes do not grant (`int:*` and write-includes-read honoured). */
  missingScopes(held: readonly string[], required: readonly Scope[]): Scope[] {
    return required.filter((scope) => !grants(held, scope));
  }

  /** Whether a token names a tool (`*` names every tool). */
  tokenNamesTool(tools: readonly string[], tool: string): boolean {
    return tools.includes('*') || tools.includes(tool);
  }

  /** Whether a person holds the permission matching a read scope (`fin.invoices:read`, or its write). */
  personMay(permissions: readonly string[], scope: Scope): boolean {
    // `*` is never a person's permission (it would read as `int:*`, every scope).
    const asScopes = permissions.filter((permission) => permission !== '*').map((permission) => `int:${permission}`);
    return grants(asScopes, scope);
  }

  /**
   * Why a tool is refused, or null when the token names it and its person still holds the
   * permission of every scope the tool reads.
   */
  toolRefusal(caller: ToolCaller, tool: string, scopes: readonly Scope[]): ToolRefusal | null {
    if (!this.tokenNamesTool(caller.tools, tool)) return 'tool_not_granted';
    if (!scopes.every((scope) => this.personMay(caller.permissions, scope))) return 'permission_withdrawn';
    return null;
  }

  /**
   * Whether a key sees an event in the events feed: exactly when it could subscribe to its type
   * (spec 6.2), so the type's read scope (a write scope counts), `int:*` for types without a read
   * endpoint. Personal data is not asked: the feed is a read with the key's own scopes, like
   * `GET /v1/employees`; the personal-data grant governs pushing events to a receiver's URL.
   */
  eventVisible(scopes: readonly string[], event: EventEntitlementRule): boolean {
    return grants(scopes, event.scope);
  }

  /**
   * Whether an event may be delivered to an endpoint whose owning key is `subscriber` (spec 5.8,
   * 6.4): the key still active and holding the event's read scope, and personal data only to an
   * endpoint support enabled for it. Null when it may.
   */
  eventRefusal(subscriber: EventSubscriber, event: EventEntitlementRule): EventRefusal | null {
    if (subscriber.keyState !== 'active') return 'api_key_inactive';
    if (!grants(subscriber.scopes, event.scope)) return 'api_key_scope_insufficient';
    if (event.personalData && !subscriber.personalDataGranted) return 'pii_capability_blocked';
    return null;
  }
}
