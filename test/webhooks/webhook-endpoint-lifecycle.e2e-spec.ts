import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { ApiKeyHooks } from '../../src/platform/auth/api-key-hooks.js';
import { ApiKeysService } from '../../src/platform/auth/api-keys.service.js';
import { Scope } from '../../src/platform/catalog/scopes.js';
import { DeliveryGate } from '../../src/webhooks/delivery/gate/delivery-gate.js';
import { WebhookEndpoint, type WebhookEndpointStatus, type WebhookDisabledReason } from '../../src/webhooks/webhook-endpoint.entity.js';
import { startApi, type TestApi } from '../support/api.js';
import { runCli } from '../support/cli.js';
import { publishEvents } from '../support/deliveries.js';
import { eventBeingWritten } from '../support/publishing-lock.js';
import { createTenantSession, type TenantSession } from '../support/tenant-session.js';
import { waitFor } from '../support/wait-for.js';
import { stubDns } from '../support/webhooks.js';

type Json = Record<string, any>;

/** Quota (spec 8) and the state machine (spec 3), with the database state after each step. */
describe('webhook endpoint quota and states (e2e)', () => {
  let api: TestApi;
  let db: DataSource;
  let session: TenantSession;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    stubDns(api.app, { 'hooks.example.com': ['93.184.216.34'] });
  });
  afterAll(() => api.close());
  beforeEach(async () => {
    session = await createTenantSession(api.app, { scopes: [Scope.WebhooksManage, Scope.FinInvoicesRead] });
  });

  const body = (name = 'ERP') => ({ name, url: 'https://hooks.example.com/oh', event_types: ['fin.invoice.created'] });
  const create = (auth = session.auth, name?: string) => api.http.post('/v1/webhook_endpoints').set('Authorization', auth).send(body(name));
  const created = async (auth = session.auth): Promise<Json> => {
    const res = await create(auth);
    expect(res.status).toBe(201);
    return res.body as Json;
  };
  const action = (id: string, name: 'pause' | 'resume', auth = session.auth) => api.http.post(`/v1/webhook_endpoints/${id}/${name}`).set('Authorization', auth);
  const remove = (id: string, auth = session.auth) => api.http.delete(`/v1/webhook_endpoints/${id}`).set('Authorization', auth);
  const state = async (id: string) => {
    const { status, disabledReason } = await db.getRepository(WebhookEndpoint).findOneByOrFail({ id });
    return { status, disabledReason };
  };
  const setState = (id: string, status: WebhookEndpointStatus, disabledReason: WebhookDisabledReason | null) =>
    db.getRepository(WebhookEndpoint).update({ id }, { status, disabledReason });
  /** Opens the endpoint's circuit in the gate: a run of failures gives it one request at a time, and the fifth opens it. */
  const openCircuit = async (endpointId: string) => {
    const gate = api.app.get(DeliveryGate);
    const now = Date.now();
    await gate.enqueue(Array.from({ length: 5 }, () => ({ endpointId, deliveryId: randomUUID(), dueMs: now })), now);
    for (let failure = 0; failure < 5; failure += 1) {
      const { grants } = await gate.take(1, now);
      await gate.release(grants.map((grant) => ({ ...grant, verdict: 'down' as const, holdUntilMs: null })), 0, now);
    }
  };
  const quotaUsed = () => db.getRepository(WebhookEndpoint).count({ where: [{ tenantId: session.tenant.id, status: 'active' }, { tenantId: session.tenant.id, status: 'paused' }] });

  function expectQuotaExceeded(res: Response): void {
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ detail_key: 'errors.integrations.webhooks.quota_exceeded', code: 'quota_exceeded', status: 429 });
    expect(res.headers['retry-after']).toBeUndefined();
  }

  describe('quota', () => {
    it('lets exactly 5 of 20 parallel creates by different keys of one company succeed; the rest get 429 without Retry-After', async () => {
      const keys = await Promise.all(Array.from({ length: 20 }, () => session.newKey([Scope.WebhooksManage, Scope.FinInvoicesRead])));
      const answers = await Promise.all(keys.map((key, index) => create(key.auth, `race ${index}`)));
      expect(answers.filter((res) => res.status === 201)).toHaveLength(5);
      const refused = answers.filter((res) => res.status !== 201);
      expect(refused).toHaveLength(15);
      refused.forEach(expectQuotaExceeded);
      expect(await quotaUsed()).toBe(5);
      expect(await db.getRepository(WebhookEndpoint).countBy({ tenantId: session.tenant.id })).toBe(5);
    });

    it('counts active and paused, not deleted or auto-disabled; deleting frees a place', async () => {
      const endpoints = await Promise.all(Array.from({ length: 5 }, () => created()));
      await action(endpoints[0].id, 'pause');
      expectQuotaExceeded(await create());
      expect((await remove(endpoints[1].id)).status).toBe(200);
      const sixth = await created();
      await setState(sixth.id, 'disabled', 'auto_consecutive_failures');
      expect((await create()).status).toBe(201);
      expectQuotaExceeded(await create());
      const other = await createTenantSession(api.app, { scopes: [Scope.All] });
      expect((await create(other.auth)).status).toBe(201);
    });

    it('needs room to resume or pause an auto-disabled endpoint', async () => {
      const endpoints = await Promise.all(Array.from({ length: 5 }, () => created()));
      await setState(endpoints[0].id, 'disabled', 'auto_410_repeat');
      await created();
      expectQuotaExceeded(await action(endpoints[0].id, 'resume'));
      expectQuotaExceeded(await action(endpoints[0].id, 'pause'));
      expect(await state(endpoints[0].id)).toEqual({ status: 'disabled', disabledReason: 'auto_410_repeat' });
      await remove(endpoints[1].id);
      const resumed = await action(endpoints[0].id, 'resume');
      expect(resumed.status).toBe(200);
      expect(resumed.body).toMatchObject({ status: 'active', disabled_reason: null });
      expect(await state(endpoints[0].id)).toEqual({ status: 'active', disabledReason: null });
    });
  });

  describe('state machine', () => {
    it('pauses, leaves a paused endpoint as it is, and resumes', async () => {
      const { id } = await created();
      const paused = await action(id, 'pause');
      expect(paused.status).toBe(200);
      expect(paused.body).toMatchObject({ id, status: 'paused', disabled_reason: null });
      expect(await state(id)).toEqual({ status: 'paused', disabledReason: null });
      expect((await action(id, 'pause')).body).toMatchObject({ status: 'paused', disabled_reason: null });
      const resumed = await action(id, 'resume');
      expect(resumed.body).toMatchObject({ status: 'active', disabled_reason: null });
      expect((await action(id, 'resume')).body).toMatchObject({ status: 'active' });
      expect(await state(id)).toEqual({ status: 'active', disabledReason: null });
    });

    it('pausing keeps the reason of an already paused endpoint', async () => {
      const { id } = await created();
      await setState(id, 'paused', 'api_key_inactive');
      expect((await action(id, 'pause')).body).toMatchObject({ status: 'paused', disabled_reason: 'api_key_inactive' });
      expect(await state(id)).toEqual({ status: 'paused', disabledReason: 'api_key_inactive' });
    });

    it('pausing an auto-disabled endpoint makes it paused with its reason', async () => {
      const { id } = await created();
      await setState(id, 'disabled', 'auto_7_day_all_dead');
      expect((await action(id, 'pause')).body).toMatchObject({ status: 'paused', disabled_reason: 'auto_7_day_all_dead' });
    });

    it.each([
      ['delete', 'active'],
      ['pause', 'active'],
      // Paused by a worker (its key expired) with the circuit open: resumed, it starts closed.
      ['resume', 'paused'],
      // Another receiver: tried at once, not after the old one's cool-down (found by the subscriber review).
      ['url change', 'active'],
    ] as const)('drops the open circuit at %s (the endpoint %s), which no attempt would close: its record shows it closed, the open count leaves it out', async (change, from) => {
      const endpoint = await created();
      if (from === 'paused') await setState(endpoint.id, 'paused', 'api_key_inactive');
      await openCircuit(endpoint.id);
      const circuit = async () => (await api.http.get(`/v1/webhook_endpoints/${endpoint.id}`).set('Authorization', session.auth)).body.circuit;
      expect(await circuit()).toMatchObject({ state: 'open' });
      const redis = new Redis(api.config.REDIS_URL);
      try {
        const counted = () => redis.sismember(`${api.config.REDIS_PREFIX}:wh:open`, endpoint.id);
        expect(await counted()).toBe(1);
        const changed =
          change === 'delete'
            ? await remove(endpoint.id)
            : change === 'url change'
              ? await api.http.patch(`/v1/webhook_endpoints/${endpoint.id}`).set('Authorization', session.auth).send({ url: 'https://hooks.example.com/fixed' })
              : await action(endpoint.id, change);
        expect(changed.status).toBe(200);
        expect(changed.body.circuit).toMatchObject({ state: 'closed', opened_at: null });
        expect(await circuit()).toMatchObject({ state: 'closed', opened_at: null });
        expect(await counted()).toBe(0);
      } finally {
        redis.disconnect();
      }
    });

    it('keeps the circuit when a change leaves the receiver as it is (a new name)', async () => {
      const endpoint = await created();
      await openCircuit(endpoint.id);
      const renamed = await api.http.patch(`/v1/webhook_endpoints/${endpoint.id}`).set('Authorization', session.auth).send({ name: 'Renamed' });
      expect(renamed.status).toBe(200);
      expect(renamed.body.circuit).toMatchObject({ state: 'open' });
    });

    it('deletes active and paused endpoints; they stay listed and answer 404 to pause, resume, delete and changes', async () => {
      const active = await created();
      const paused = await created();
      await action(paused.id, 'pause');
      for (const id of [active.id, paused.id]) {
        const res = await remove(id);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ id, status: 'disabled', disabled_reason: 'user_deleted' });
        expect(await state(id)).toEqual({ status: 'disabled', disabledReason: 'user_deleted' });
        for (const res404 of [
          await action(id, 'pause'),
          await action(id, 'resume'),
          await remove(id),
          await api.http.patch(`/v1/webhook_endpoints/${id}`).set('Authorization', session.auth).send({ name: 'revive' }),
          await api.http.post(`/v1/webhook_endpoints/${id}/rotate_secret`).set('Authorization', session.auth),
        ]) {
          expect(res404.status).toBe(404);
          expect(res404.body.detail_key).toBe('errors.integrations.webhooks.not_found');
        }
        expect(await state(id)).toEqual({ status: 'disabled', disabledReason: 'user_deleted' });
        expect((await api.http.get(`/v1/webhook_endpoints/${id}`).set('Authorization', session.auth)).body).toMatchObject({ status: 'disabled', disabled_reason: 'user_deleted' });
      }
      const list = await api.http.get('/v1/webhook_endpoints').set('Authorization', session.auth);
      expect(list.body.data.map((endpoint: Json) => [endpoint.id, endpoint.status, endpoint.disabled_reason])).toEqual([
        [paused.id, 'disabled', 'user_deleted'],
        [active.id, 'disabled', 'user_deleted'],
      ]);
    });

    it.each(['revoke', 'expire', 'delete'] as const)('answers 409 owner_key_inactive to resuming a paused endpoint whose owning key was %sd', async (change) => {
      const owner = await session.newKey([Scope.WebhooksManage, Scope.FinInvoicesRead]);
      const admin = await session.newKey([Scope.All]);
      const { id } = await created(owner.auth);
      await action(id, 'pause', owner.auth);
      expect((await runCli(`key:${change}`, '--key', owner.id)).code).toBe(0);
      const res = await action(id, 'resume', admin.auth);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ detail_key: 'errors.integrations.webhooks.owner_key_inactive', code: 'owner_key_inactive', type: 'https://api.test.local/errors/conflict' });
      expect(await state(id)).toEqual({ status: 'paused', disabledReason: null });
    });

    describe('racing a revocation of the owning key (its transaction held open here, as key:revoke runs it)', () => {
      /** Runs `request` while a revocation of `keyId` is uncommitted; commits it once the request waits for it. */
      async function duringRevocation(keyId: string, request: () => Promise<Response>): Promise<Response> {
        const revocation = db.createQueryRunner();
        await revocation.connect();
        await revocation.startTransaction();
        try {
          await revocation.query(`UPDATE api_keys SET revoked_at = clock_timestamp() WHERE id = $1`, [keyId]);
          await revocation.query(`UPDATE webhook_endpoints SET status = 'paused', disabled_reason = 'api_key_revoked' WHERE api_key_id = $1 AND status = 'active'`, [keyId]);
          const answer = request();
          // Before: the request read the key without waiting, and made the endpoint active under a key being revoked.
          await waitFor(async () => (await db.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR SHARE%'`)).length > 0, 10_000, 'the request to wait for the revocation');
          await revocation.commitTransaction();
          return await answer;
        } finally {
          if (revocation.isTransactionActive) await revocation.rollbackTransaction();
          await revocation.release();
        }
      }

      it('a resume waits for it, then answers 409 owner_key_inactive; the endpoint stays paused', async () => {
        const owner = await session.newKey([Scope.WebhooksManage, Scope.FinInvoicesRead]);
        const admin = await session.newKey([Scope.All]);
        const { id } = await created(owner.auth);
        await action(id, 'pause', owner.auth);
        const res = await duringRevocation(owner.id, () => action(id, 'resume', admin.auth).then((answer) => answer));
        expect(res.status).toBe(409);
        expect(res.body.detail_key).toBe('errors.integrations.webhooks.owner_key_inactive');
        expect(await state(id)).toEqual({ status: 'paused', disabledReason: null });
      });

      it('a create waits for it, then answers 401; no endpoint is made', async () => {
        const owner = await session.newKey([Scope.WebhooksManage, Scope.FinInvoicesRead]);
        const res = await duringRevocation(owner.id, () => create(owner.auth).then((answer) => answer));
        expect(res.status).toBe(401);
        expect(await db.query(`SELECT id FROM webhook_endpoints WHERE api_key_id = $1`, [owner.id])).toEqual([]);
      });
    });

    it('answers 409 owner_key_inactive to resuming an auto-disabled endpoint of an inactive key', async () => {
      const owner = await session.newKey([Scope.WebhooksManage, Scope.FinInvoicesRead]);
      const admin = await session.newKey([Scope.All]);
      const { id } = await created(owner.auth);
      await setState(id, 'disabled', 'auto_consecutive_failures');
      await runCli('key:expire', '--key', owner.id);
      const refused = await action(id, 'resume', admin.auth);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ detail_key: 'errors.integrations.webhooks.owner_key_inactive', code: 'owner_key_inactive' });
      expect(await state(id)).toEqual({ status: 'disabled', disabledReason: 'auto_consecutive_failures' });
    });
  });

  describe("a delivery's next_attempt_at while its endpoint waits", () => {
    /** A pending delivery of the endpoint, due now (no worker runs here: nothing attempts it). */
    const pendingDelivery = async (endpointId: string): Promise<string> => {
      const [eventId] = await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
      const [{ id }] = await db.query(
        `INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, api_version, personal_data, attempt, next_attempt_at)
         VALUES ($1, $2, $3, 'fin.invoice.created', '2026-05-16', false, 1, clock_timestamp()) RETURNING id`,
        [session.tenant.id, endpointId, eventId],
      );
      return id as string;
    };
    const shown = async (endpointId: string, deliveryId: string) => {
      const base = `/v1/webhook_endpoints/${endpointId}`;
      const [listed, one, endpoint] = await Promise.all([
        api.http.get(`${base}/deliveries`).set('Authorization', session.auth),
        api.http.get(`${base}/deliveries/${deliveryId}`).set('Authorization', session.auth),
        api.http.get(base).set('Authorization', session.auth),
      ]);
      expect(listed.body.data.map((delivery: Json) => delivery.id)).toEqual([deliveryId]);
      return { listed: listed.body.data[0].next_attempt_at, one: one.body.next_attempt_at, circuit: endpoint.body.circuit };
    };

    it('is the open circuit\'s next probe, not the retry time the probe will come after', async () => {
      const endpoint = await created();
      const deliveryId = await pendingDelivery(endpoint.id);
      const [{ stored }] = await db.query(`SELECT next_attempt_at AS stored FROM webhook_deliveries WHERE id = $1`, [deliveryId]);
      expect(await shown(endpoint.id, deliveryId)).toMatchObject({ listed: stored.toISOString(), one: stored.toISOString() });

      await openCircuit(endpoint.id);
      const { listed, one, circuit } = await shown(endpoint.id, deliveryId);
      expect(circuit).toMatchObject({ state: 'open', next_probe_at: expect.any(String) });
      expect(new Date(circuit.next_probe_at).getTime()).toBeGreaterThan(stored.getTime());
      expect([listed, one]).toEqual([circuit.next_probe_at, circuit.next_probe_at]);
      // The stored time is the retry time still.
      expect((await db.query(`SELECT next_attempt_at FROM webhook_deliveries WHERE id = $1`, [deliveryId]))[0].next_attempt_at).toEqual(stored);
    });

    it("is the end of a receiver's Retry-After, also in the answer to retry now", async () => {
      const endpoint = await created();
      const deliveryId = await pendingDelivery(endpoint.id);
      const gate = api.app.get(DeliveryGate);
      const now = Date.now();
      await gate.enqueue([{ endpointId: endpoint.id, deliveryId: randomUUID(), dueMs: now }], now);
      const { grants } = await gate.take(1, now);
      expect(grants).toHaveLength(1);
      await gate.release([{ ...grants[0], verdict: 'up', holdUntilMs: now + 120_000 }], 0, now);

      const { listed, one, circuit } = await shown(endpoint.id, deliveryId);
      expect(circuit).toMatchObject({ state: 'closed', held_until: new Date(now + 120_000).toISOString() });
      expect([listed, one]).toEqual([circuit.held_until, circuit.held_until]);
      const retried = await api.http.post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${deliveryId}/retry`).set('Authorization', session.auth);
      expect(retried.status).toBe(202);
      expect(retried.body.next_attempt_at).toBe(circuit.held_until);
    });
  });

  describe('key:revoke', () => {
    it('races a pause of its endpoint while an event of the company is being written: both finish, one after the other, no deadlock', async () => {
      const owner = await session.newKey([Scope.WebhooksManage, Scope.FinInvoicesRead]);
      const admin = await session.newKey([Scope.All]);
      const { id } = await created(owner.auth);
      // An event transaction of the company in flight: it holds the publishing lock shared, which both changes need exclusively.
      const event = await eventBeingWritten(db, session.tenant.id);
      try {
        const revoking = api.app.get(ApiKeysService).changeState(owner.id, 'revoked');
        await event.lockWaits(1, 'the revocation to wait for the event');
        const pausing = action(id, 'pause', admin.auth).then((answer) => answer);
        await event.lockWaits(2, 'the pause to wait too');
        await event.finish();
        // Before: the revocation held the key and waited for the publishing lock, the pause held the endpoint and waited for it too; one was chosen as a deadlock's victim.
        await expect(revoking).resolves.toEqual({ id: owner.id, state: 'revoked' });
        expect((await pausing).status).toBe(200);
      } finally {
        await event.release();
      }
      expect(await db.query(`SELECT revoked_at IS NOT NULL AS revoked FROM api_keys WHERE id = $1`, [owner.id])).toEqual([{ revoked: true }]);
      expect(await state(id)).toEqual({ status: 'paused', disabledReason: 'api_key_revoked' });
    });

    it('pauses the key’s active endpoints with api_key_revoked, and touches no others', async () => {
      const owner = await session.newKey([Scope.WebhooksManage, Scope.FinInvoicesRead]);
      const active = await created(owner.auth);
      const paused = await created(owner.auth);
      await action(paused.id, 'pause', owner.auth);
      const deleted = await created(owner.auth);
      await remove(deleted.id, owner.auth);
      const othersEndpoint = await created();

      const revoke = await runCli('key:revoke', '--key', owner.id);
      expect(revoke.json).toEqual({ id: owner.id, state: 'revoked' });
      expect(await state(active.id)).toEqual({ status: 'paused', disabledReason: 'api_key_revoked' });
      expect(await state(paused.id)).toEqual({ status: 'paused', disabledReason: null });
      expect(await state(deleted.id)).toEqual({ status: 'disabled', disabledReason: 'user_deleted' });
      expect(await state(othersEndpoint.id)).toEqual({ status: 'active', disabledReason: null });

      const admin = await session.newKey([Scope.All]);
      const refused = await action(active.id, 'resume', admin.auth);
      expect(refused.status).toBe(409);
      expect(refused.body.detail_key).toBe('errors.integrations.webhooks.owner_key_inactive');
      expect(await state(active.id)).toEqual({ status: 'paused', disabledReason: 'api_key_revoked' });
    });

    it('runs in the revocation’s transaction: a failing hook leaves key and endpoints unchanged', async () => {
      const owner = await session.newKey([Scope.WebhooksManage, Scope.FinInvoicesRead]);
      const { id } = await created(owner.auth);
      api.app.get(ApiKeyHooks).onRevoked(async (key) => {
        if (key.id === owner.id) throw new Error('hook failed');
      });
      await expect(api.app.get(ApiKeysService).changeState(owner.id, 'revoked')).rejects.toThrow('hook failed');
      expect((await db.query('SELECT revoked_at FROM api_keys WHERE id = $1', [owner.id]))[0].revoked_at).toBeNull();
      expect(await state(id)).toEqual({ status: 'active', disabledReason: null });
    });
  });
});
