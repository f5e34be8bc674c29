import type { INestApplicationContext } from '@nestjs/common';
import { jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { Scope } from '../../src/platform/catalog/scopes.js';
import { AutoDisable } from '../../src/webhooks/delivery/auto-disable.service.js';
import { DeliveryGate } from '../../src/webhooks/delivery/gate/delivery-gate.js';
import { WebhookClock } from '../../src/webhooks/delivery/webhook-clock.js';
import { WebhookEndpoint } from '../../src/webhooks/webhook-endpoint.entity.js';
import type { TestApi } from '../support/api.js';
import { createEndpoint, type DeliveryFixture, publishEvents, settledDeliveries, startDeliveryFixture } from '../support/deliveries.js';
import { createTenantSession, type TenantSession } from '../support/tenant-session.js';
import { eventBeingWritten } from '../support/publishing-lock.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';
import { waitFor } from '../support/wait-for.js';

const DAY = 24 * 3600 * 1000;

describe('auto-disable of failing endpoints (e2e)', () => {
  let fixture: DeliveryFixture;
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: WebhookReceiver;
  let db: DataSource;
  let session: TenantSession;

  beforeAll(async () => {
    // Thresholds small enough to reach in seconds; the 7-day period keeps its default and is reached by moving the clock.
    fixture = await startDeliveryFixture('auto-disable', { WEBHOOK_DISABLE_CONSECUTIVE_FAILURES: '12', WEBHOOK_DISABLE_FAILURE_PERIOD_MS: '0', WEBHOOK_DISABLE_GONE_STREAK: '3' }, (request) => (request.path.startsWith('/gone') ? { status: 410 } : { status: 500 }));
    ({ api, worker, receiver, db } = fixture);
  });
  afterAll(() => fixture.close());
  beforeEach(async () => {
    session = await createTenantSession(api.app, { scopes: [Scope.All] });
  });
  afterEach(() => jest.restoreAllMocks());

  const owner = () => ({ tenantId: session.tenant.id, apiKeyId: session.keyId });
  const stored = (id: string) => db.getRepository(WebhookEndpoint).findOneByOrFail({ id });
  /** A failure's time: second `seconds` of a fixed day. */
  const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));
  /** Reports the endpoint's failures to the worker's AutoDisable at `at(seconds)`, and reads back the judgements it made of the endpoint. */
  const judgementsOf = (endpointId: string) => {
    const autoDisable = worker.get(AutoDisable);
    const judge = jest.spyOn(autoDisable as unknown as { judge: (...args: unknown[]) => Promise<unknown> }, 'judge');
    return {
      fail: (seconds: number, dead = false) => autoDisable.afterFailure(session.tenant.id, endpointId, at(seconds), dead),
      judged: () => judge.mock.calls.filter((call) => call[1] === endpointId),
    };
  };

  it('auto_410_repeat: three attempts in a row answered 410', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/gone') });
    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created', 2);
    await settledDeliveries(api.app, endpoint.id, 2);
    expect(await stored(endpoint.id)).toMatchObject({ status: 'active', disabledReason: null });

    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
    await waitFor(async () => (await stored(endpoint.id)).status === 'disabled', 10_000, 'the endpoint to be disabled');
    expect(await stored(endpoint.id)).toMatchObject({ status: 'disabled', disabledReason: 'auto_410_repeat' });
  });

  it('counts a resumed endpoint afresh: one more 410 after resuming does not disable it again, a new streak of three does', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/gone-again') });
    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created', 3);
    await waitFor(async () => (await stored(endpoint.id)).status === 'disabled', 10_000, 'the endpoint to be disabled');
    const resumed = await api.http.post(`/v1/webhook_endpoints/${endpoint.id}/resume`).set('Authorization', session.auth);
    expect(resumed.status).toBe(200);

    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
    await settledDeliveries(api.app, endpoint.id, 4);
    // Judgements run one round at a time: once this one is done, the worker's for that failure is too.
    await worker.get(AutoDisable).afterFailure(session.tenant.id, endpoint.id, new Date(), false);
    expect(await stored(endpoint.id)).toMatchObject({ status: 'active', disabledReason: null });

    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created', 2);
    await waitFor(async () => (await stored(endpoint.id)).status === 'disabled', 10_000, 'the endpoint to be disabled again');
    expect(await stored(endpoint.id)).toMatchObject({ disabledReason: 'auto_410_repeat' });
  });

  it('does not disable an endpoint resumed while its failures were judged: the evidence was of the activity before', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/gone-resumed') });
    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created', 2);
    await settledDeliveries(api.app, endpoint.id, 2);
    // The third 410 is judged while the test holds the endpoint's row, and a pause and resume are
    // made under that lock: the judgement read three 410s, and its switch-off waits for the row.
    const lock = db.createQueryRunner();
    await lock.connect();
    await lock.startTransaction();
    try {
      // NO KEY: the relay's insert of the delivery (a foreign key to the row) still passes.
      await lock.query(`SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR NO KEY UPDATE`, [endpoint.id]);
      await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
      await waitFor(
        async () =>
          (
            await db.query(
              `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'SELECT id FROM webhook_endpoints WHERE%FOR UPDATE'`,
            )
          ).length > 0,
        10_000,
        'the judgement to wait for the row',
      );
      await lock.query(`UPDATE webhook_endpoints SET status_changed_at = clock_timestamp() WHERE id = $1`, [endpoint.id]);
      await lock.commitTransaction();
    } finally {
      if (lock.isTransactionActive) await lock.rollbackTransaction();
      await lock.release();
    }
    await settledDeliveries(api.app, endpoint.id, 3);
    await worker.get(AutoDisable).afterFailure(session.tenant.id, endpoint.id, new Date(), false);
    expect(await stored(endpoint.id)).toMatchObject({ status: 'active', disabledReason: null });
  });

  it('races a pause while an event of the company is being written: the switch-off, then the pause, no deadlock', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/gone-paused-meanwhile') });
    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created', 2);
    await settledDeliveries(api.app, endpoint.id, 2);
    // An event transaction of the company in flight holds the publishing lock shared; the third 410's switch-off needs it exclusively.
    const event = await eventBeingWritten(db, session.tenant.id);
    try {
      await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
      await event.lockWaits(1, 'the switch-off to wait for the event');
      const pausing = api.http.post(`/v1/webhook_endpoints/${endpoint.id}/pause`).set('Authorization', session.auth).then((answer) => answer);
      await event.lockWaits(2, 'the pause to wait too');
      await event.finish();
      // Before: the switch-off waited for the lock, the pause held the endpoint's row and waited for it too; one was a deadlock's victim.
      expect((await pausing).status).toBe(200);
    } finally {
      await event.release();
    }
    expect(await stored(endpoint.id)).toMatchObject({ status: 'paused', disabledReason: 'auto_410_repeat' });
  });

  it('auto_consecutive_failures: failed attempts in a row reach the threshold; the deliveries left end endpoint_disabled', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/failing') });
    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created', 2);
    const rows = await settledDeliveries(api.app, endpoint.id, 2);
    expect(await stored(endpoint.id)).toMatchObject({ status: 'disabled', disabledReason: 'auto_consecutive_failures' });
    const [{ attempts }] = await db.query(`SELECT count(*)::int AS attempts FROM webhook_delivery_attempts WHERE endpoint_id = $1`, [endpoint.id]);
    // The other delivery's attempt may have been in flight when the 12th failure disabled the endpoint.
    expect(attempts).toBeGreaterThanOrEqual(12);
    expect(attempts).toBeLessThanOrEqual(13);
    expect(rows.map((row) => row.status === 'failed' ? row.error_class : row.status).sort()).toEqual(['endpoint_disabled', 'endpoint_disabled']);
    // The failures had opened its circuit; disabled, it is never attempted again, so the circuit is dropped.
    expect((await worker.get(DeliveryGate).circuits([endpoint.id])).get(endpoint.id)).toMatchObject({ state: 'closed', openedAt: null });
  });

  it("judges one endpoint's failures together: one judgement at a time, one more after it for the failures it did not see", async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/failing') });
    const { fail, judged } = judgementsOf(endpoint.id);

    // A receiver going down: every attempt in flight to it fails at once.
    await Promise.all([fail(1), fail(3, true), fail(2)]);
    expect(judged()).toEqual([[session.tenant.id, endpoint.id, at(3), true]]);

    // Failures while a judgement runs wait for it and are judged together after it.
    const first = fail(4);
    await waitFor(async () => judged().length === 2, 5000, 'the judgement to start');
    const later = [fail(6), fail(5, true)];
    await Promise.all([first, ...later]);
    expect(judged().slice(1)).toEqual([
      [session.tenant.id, endpoint.id, at(4), false],
      [session.tenant.id, endpoint.id, at(6), true],
    ]);
  });

  it("judges an outage's failures arriving a few milliseconds apart in one round, not one each", async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/failing-apart') });
    const { fail, judged } = judgementsOf(endpoint.id);

    // After a quiet moment the first failure is judged at once.
    await fail(1);
    expect(judged()).toEqual([[session.tenant.id, endpoint.id, at(1), false]]);
    // The receiver's other requests time out in the order they were sent: here 10 ms apart, each
    // after the previous round has ended (the pause stands for the receiver, not for a wait on the service).
    const failures: Promise<void>[] = [];
    for (let second = 2; second <= 6; second++) {
      failures.push(fail(second));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await Promise.all(failures);
    expect(judged()).toEqual([
      [session.tenant.id, endpoint.id, at(1), false],
      [session.tenant.id, endpoint.id, at(6), false],
    ]);
  });

  it('auto_7_day_all_dead: a delivery dies and nothing was delivered for 7 days of attempts', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/dead') });
    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
    await settledDeliveries(api.app, endpoint.id, 1);
    // Fewer than 12 attempts so far (8): the streak rule has not fired, and a week has not passed.
    expect(await stored(endpoint.id)).toMatchObject({ status: 'active' });

    const clock = worker.get(WebhookClock);
    const later = () => new Date(Date.now() + 8 * DAY);
    jest.spyOn(clock, 'now').mockImplementation(later);
    // A consecutive-failures threshold out of reach isolates the 7-day rule.
    await db.query(`DELETE FROM webhook_delivery_attempts WHERE endpoint_id = $1 AND attempt > 2`, [endpoint.id]);
    receiver.respond = (request) => (request.path === '/dead' ? { status: 500 } : { status: 204 });
    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
    await waitFor(async () => (await stored(endpoint.id)).status === 'disabled', 10_000, 'the endpoint to be disabled');
    expect(await stored(endpoint.id)).toMatchObject({ status: 'disabled', disabledReason: 'auto_7_day_all_dead' });
  });
});
