import { Inject, Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { AccessService } from '../platform/access/access.service.js';
import { ApiKey, apiKeyState } from '../platform/auth/api-key.entity.js';
import type { AuthContext } from '../platform/auth/auth-context.js';
import { invalidToken } from '../platform/auth/bearer-credentials.js';
import type { RevokedKey } from '../platform/auth/api-key-hooks.js';
import { Scope } from '../platform/catalog/scopes.js';
import { AppConfig } from '../platform/config/app-config.js';
import { DomainException } from '../platform/errors/domain.exception.js';
import { excludePublishing } from '../platform/events/event-publisher.service.js';
import { TenantData, type TenantScope } from '../platform/tenancy/tenant-data.js';
import { type CreateWebhookEndpointDto, MAX_URL_LENGTH, type UpdateWebhookEndpointDto } from './dto/webhook-endpoint-input.dto.js';
import { toWebhookEndpointDto, type WebhookEndpointDto } from './dto/webhook-endpoint.dto.js';
import { DeliveryGate } from './delivery/gate/delivery-gate.js';
import { WebhookSecretBox } from './secrets/webhook-secret-box.js';
import { checkOwnerCanReceive, checkSubscription } from './subscriptions.js';
import { WebhookUrlChecker } from './url-safety/webhook-url-checker.js';
import { isDeleted, WebhookEndpoint } from './webhook-endpoint.entity.js';
import { type EndpointAction, MAX_ENDPOINTS_PER_COMPANY, QUOTA_STATUSES, transition } from './webhook-endpoint-state.js';

export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  secret: string;
}

const ROTATION_GRACE = "interval '24 hours'";

@Injectable()
export class WebhookEndpointsService {
  constructor(
    @Inject(TenantData) private readonly data: TenantData,
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(WebhookUrlChecker) private readonly urls: WebhookUrlChecker,
    @Inject(WebhookSecretBox) private readonly secrets: WebhookSecretBox,
    @Inject(AccessService) private readonly access: AccessService,
    @Inject(DeliveryGate) private readonly gate: DeliveryGate,
  ) {}

  /**
   * The endpoints as the API shows them, with their circuits read from the delivery gate in one
   * round trip. Without Redis the answer still comes, `circuit` null, and the failure is logged.
   */
  async represent(endpoints: readonly WebhookEndpoint[]): Promise<WebhookEndpointDto[]> {
    const circuits = await this.gate.circuitsShown(endpoints.map((endpoint) => endpoint.id));
    return endpoints.map((endpoint) => toWebhookEndpointDto(endpoint, circuits?.get(endpoint.id) ?? null));
  }

  /**
   * The endpoint if the caller may see it: created by the caller's key, or any endpoint of the
   * company for an `int:*` key; otherwise 404, as if it did not exist. Deleted endpoints are
   * found too (they stay readable); routes that change an endpoint refuse them themselves.
   * `scope` (the caller's company, with `lock`) reads inside a transaction holding the row.
   */
  async findOwned(auth: AuthContext, id: string, scope: TenantScope = this.data.forTenant(auth.tenantId), lock = false): Promise<WebhookEndpoint> {
    const query = scope.repository(WebhookEndpoint).select('endpoint').andWhere('endpoint.id = :id', { id });
    if (!this.managesAll(auth)) query.andWhere('endpoint.api_key_id = :apiKeyId', { apiKeyId: auth.apiKeyId });
    if (lock) query.setLock('pessimistic_write');
    const endpoint = await query.getOne();
    if (!endpoint) throw notFound(id);
    return endpoint;
  }

  /** Every endpoint the caller manages, deleted ones included, newest first. */
  async list(auth: AuthContext): Promise<WebhookEndpoint[]> {
    return this.data.forTenant(auth.tenantId).repository(WebhookEndpoint).find({
      where: this.managesAll(auth) ? {} : { apiKeyId: auth.apiKeyId },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  /**
   * Checks in order: subscription (422 unknown_event_type, 403 missing_scope), pinned_version
   * (422), URL (422 url_not_publicly_routable), then the company quota (429) under a lock, so
   * concurrent creates never exceed it, and the creating key, read under a share lock (401 if it
   * was revoked, expired or deleted while the request ran; see activeOwner).
   */
  async create(auth: AuthContext, input: CreateWebhookEndpointDto): Promise<EndpointWithSecret> {
    const eventTypes = checkSubscription(input.event_types, auth.scopes, this.access);
    const pinnedVersion = this.pinnedVersion(input.pinned_version ?? null);
    const url = await this.vetUrl(input.url);
    const secret = this.secrets.generateSecret();
    const endpoint = await this.data.transaction(auth.tenantId, async (scope) => {
      await this.assertQuotaRoom(scope);
      if (!(await this.activeOwner(scope, auth.apiKeyId))) throw invalidToken('The API key was revoked, expired or deleted while the request ran.');
      await excludePublishing(scope);
      const repository = scope.repository(WebhookEndpoint);
      const [id] = await repository.insert({
        apiKeyId: auth.apiKeyId,
        name: input.name,
        url,
        eventTypes,
        pinnedVersion,
        status: 'active',
        disabledReason: null,
        piiEnabled: false,
        secretCiphertext: this.secrets.seal(secret),
      });
      return repository.findOneOrFail({ id });
    });
    return { endpoint, secret };
  }

  /** Changes name, url, event_types and pinned_version; a new url or event_types withdraws the personal-data permission. */
  async update(auth: AuthContext, id: string, input: UpdateWebhookEndpointDto): Promise<WebhookEndpoint> {
    const members = Object.keys(input).filter((member) => input[member as keyof UpdateWebhookEndpointDto] !== undefined);
    if (members.length === 0) {
      throw new DomainException('WebhookValidationFailed', 'Nothing to change: send name, url, event_types or pinned_version.', {
        errors: [{ path: '', code: 'no_writable_fields', message: 'the body names none of name, url, event_types, pinned_version' }],
      });
    }
    const live = await this.findLive(auth, id);
    const eventTypes = input.event_types === undefined ? undefined : checkSubscription(input.event_types, auth.scopes, this.access);
    const pinnedVersion = input.pinned_version === undefined ? undefined : this.pinnedVersion(input.pinned_version);
    const url = input.url === undefined ? undefined : await this.vetUrl(input.url);

    const { endpoint, changes } = await this.data.transaction(auth.tenantId, async (scope) => {
      const endpoint = await this.findOwned(auth, live.id, scope, true);
      if (isDeleted(endpoint)) throw notFound(id);
      const changes: Partial<WebhookEndpoint> = {};
      if (input.name !== undefined && input.name !== endpoint.name) changes.name = input.name;
      if (url !== undefined && url !== endpoint.url) changes.url = url;
      if (eventTypes !== undefined && !sameSet(eventTypes, endpoint.eventTypes)) {
        if (endpoint.apiKeyId !== auth.apiKeyId) await this.assertOwnerCanReceive(scope, endpoint, eventTypes);
        changes.eventTypes = eventTypes;
      }
      if (pinnedVersion !== undefined && pinnedVersion !== endpoint.pinnedVersion) changes.pinnedVersion = pinnedVersion;
      if (Object.keys(changes).length === 0) return { endpoint, changes };
      if (changes.url !== undefined || changes.eventTypes !== undefined) changes.piiEnabled = false;
      // Deliveries are judged by the event types at each event's time (the trigger's history), as by the status.
      if (changes.eventTypes !== undefined) await excludePublishing(scope);
      const repository = scope.repository(WebhookEndpoint);
      await repository.update({ id: endpoint.id }, changes);
      return { endpoint: await repository.findOneOrFail({ id: endpoint.id }), changes };
    });
    // Another receiver: the old one's open circuit or Retry-After no longer says anything.
    if (changes.url !== undefined) await this.gate.forget(endpoint.id);
    return endpoint;
  }

  /** A new signing secret; the previous one stays valid for signing for 24 hours. */
  async rotateSecret(auth: AuthContext, id: string): Promise<EndpointWithSecret> {
    const secret = this.secrets.generateSecret();
    const endpoint = await this.data.transaction(auth.tenantId, async (scope) => {
      const current = await this.findOwned(auth, id, scope, true);
      if (isDeleted(current)) throw notFound(id);
      const repository = scope.repository(WebhookEndpoint);
      await repository.update(
        { id: current.id },
        {
          secretCiphertext: this.secrets.seal(secret),
          previousSecretCiphertext: current.secretCiphertext,
          previousSecretExpiresAt: () => `clock_timestamp() + ${ROTATION_GRACE}`,
        },
      );
      return repository.findOneOrFail({ id: current.id });
    });
    return { endpoint, secret };
  }

  pause(auth: AuthContext, id: string): Promise<WebhookEndpoint> {
    return this.apply(auth, id, 'pause');
  }

  resume(auth: AuthContext, id: string): Promise<WebhookEndpoint> {
    return this.apply(auth, id, 'resume');
  }

  remove(auth: AuthContext, id: string): Promise<WebhookEndpoint> {
    return this.apply(auth, id, 'delete');
  }

  /** Support enables an endpoint for personal-data events (CLI `webhook:grant-pii`). */
  async grantPersonalData(id: string): Promise<WebhookEndpoint> {
    const owner = await this.data.forOwnerOf(WebhookEndpoint, id);
    if (!owner) throw new DomainException('WebhookEndpointNotFound', `webhook endpoint ${id} not found`);
    return this.data.transaction(owner.tenantId, async (scope) => {
      const repository = scope.repository(WebhookEndpoint);
      const endpoint = await repository.select('endpoint').andWhere('endpoint.id = :id', { id }).setLock('pessimistic_write').getOneOrFail();
      if (isDeleted(endpoint)) throw new DomainException('WebhookEndpointNotActive', `webhook endpoint ${id} is deleted`);
      await repository.update({ id }, { piiEnabled: true });
      return repository.findOneOrFail({ id });
    });
  }

  /** The key:revoke hook: the key's active endpoints pause with `api_key_revoked`, in the revocation's transaction. */
  async pauseForRevokedKey(key: RevokedKey, scope: TenantScope): Promise<void> {
    // The rows first, then the publishing lock: the order a pause or a delete takes them in (no deadlock with one).
    const active = await scope.query(`SELECT id FROM webhook_endpoints WHERE tenant_id = $1 AND api_key_id = $2 AND status = 'active' FOR UPDATE`, [key.id]);
    if (active.length === 0) return;
    await excludePublishing(scope);
    await scope.repository(WebhookEndpoint).update(
      { apiKeyId: key.id, status: 'active' },
      { status: 'paused', disabledReason: 'api_key_revoked', statusChangedAt: () => 'clock_timestamp()' },
    );
  }

  /**
   * Pause and resume may take a quota place (leaving `disabled`), so they hold the company's
   * quota lock before the row lock, in the same order as create: no deadlock between them.
   */
  private async apply(auth: AuthContext, id: string, action: EndpointAction): Promise<WebhookEndpoint> {
    const { endpoint, moved } = await this.data.transaction(auth.tenantId, async (scope) => {
      if (action !== 'delete') await this.lockQuota(scope);
      const current = await this.findOwned(auth, id, scope, true);
      const step = transition(current, action);
      if (step.kind === 'gone') throw notFound(id);
      if (step.kind === 'unchanged') return { endpoint: current, moved: false };
      if (step.needsActiveOwner) await this.assertOwnerActive(scope, current);
      if (step.takesQuotaPlace) await this.assertQuotaRoom(scope);
      await excludePublishing(scope);
      const repository = scope.repository(WebhookEndpoint);
      await repository.update(
        { id: current.id },
        { status: step.to.status, disabledReason: step.to.disabledReason, statusChangedAt: () => 'clock_timestamp()' },
      );
      return { endpoint: await repository.findOneOrFail({ id: current.id }), moved: true };
    });
    // A circuit describes a receiver while its endpoint receives: paused or deleted, none; resumed, closed.
    if (moved) await this.gate.forget(endpoint.id, { sameReceiver: endpoint.status === 'active' });
    return endpoint;
  }

  /** Endpoints are managed by the key that created them, or by any `int:*` key of the company (spec 5.8). */
  private managesAll(auth: AuthContext): boolean {
    return this.access.missingScopes(auth.scopes, [Scope.All]).length === 0;
  }

  /** The URL as stored and called: vetted, normalised, and still within the length limit once normalised (percent-encoding lengthens it). */
  private async vetUrl(raw: string): Promise<string> {
    const { href } = (await this.urls.vet(raw)).url;
    if (href.length > MAX_URL_LENGTH) {
      throw new DomainException('WebhookValidationFailed', `The normalised URL is longer than ${MAX_URL_LENGTH} characters.`, {
        errors: [{ path: 'url', code: 'too_long', message: `url must be at most ${MAX_URL_LENGTH} characters once normalised` }],
      });
    }
    return href;
  }

  private async findLive(auth: AuthContext, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.findOwned(auth, id);
    if (isDeleted(endpoint)) throw notFound(id);
    return endpoint;
  }

  /** One company's quota changes one at a time: a transaction-scoped advisory lock per company. */
  private async lockQuota(scope: TenantScope): Promise<void> {
    await scope.query(`SELECT pg_advisory_xact_lock(hashtextextended('webhook_endpoint_quota:' || $1, 0))`);
  }

  private async assertQuotaRoom(scope: TenantScope): Promise<void> {
    await this.lockQuota(scope);
    const used = await scope.repository(WebhookEndpoint).count({ status: In([...QUOTA_STATUSES]) });
    if (used >= MAX_ENDPOINTS_PER_COMPANY) {
      throw new DomainException(
        'WebhookQuotaExceeded',
        `The company already has ${MAX_ENDPOINTS_PER_COMPANY} active or paused webhook endpoints; delete one first.`,
        { limit: MAX_ENDPOINTS_PER_COMPANY },
      );
    }
  }

  private async assertOwnerCanReceive(scope: TenantScope, endpoint: WebhookEndpoint, eventTypes: readonly string[]): Promise<void> {
    const owner = await scope.repository(ApiKey).findOne({ id: endpoint.apiKeyId });
    if (owner) checkOwnerCanReceive(eventTypes, owner.scopes, this.access);
  }

  private async assertOwnerActive(scope: TenantScope, endpoint: WebhookEndpoint): Promise<void> {
    if (!(await this.activeOwner(scope, endpoint.apiKeyId))) {
      throw new DomainException('WebhookOwnerKeyInactive', 'The API key that owns this endpoint is revoked, expired or deleted; create the endpoint again with an active key.');
    }
  }

  /**
   * Whether the key is active, read under a share lock held to the end of the transaction that
   * makes an endpoint active: a revocation then either commits first, and is seen here, or waits
   * for this transaction, and its hook pauses the endpoint this one made active. Read without
   * the lock, an endpoint created or resumed while its key was being revoked stayed active.
   */
  private async activeOwner(scope: TenantScope, apiKeyId: string): Promise<boolean> {
    const key = await scope.repository(ApiKey).select('key').andWhere('key.id = :apiKeyId', { apiKeyId }).setLock('pessimistic_read').getOne();
    return key !== null && apiKeyState(key) === 'active';
  }

  /** A supported API version that is not sunset; null unpins. */
  private pinnedVersion(version: string | null): string | null {
    if (version !== null && this.config.API_SUNSET_VERSIONS.includes(version)) {
      throw new DomainException('WebhookValidationFailed', `API version ${version} has been sunset.`, {
        errors: [{ path: 'pinned_version', code: 'unsupported_version', message: `pinned_version ${version} has been sunset` }],
      });
    }
    return version;
  }
}

function notFound(id: string): DomainException {
  return new DomainException('WebhookEndpointNotFound', `No webhook endpoint ${id} for this API key.`);
}

/** Event types are a set (deduplicated on input): the same types in another order are no change, and keep the personal-data grant. */
function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const current = new Set(b);
  return new Set(a).size === current.size && a.every((value) => current.has(value));
}
