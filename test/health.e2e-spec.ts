import { startApi, type TestApi } from './support/api.js';

describe('health probes (e2e)', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('/healthz answers 200 without a key', async () => {
    const res = await api.http.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(res.headers['x-trace-id']).toMatch(/^[\da-f]{32}$/);
  });

  it('/readyz answers 200 when PostgreSQL and Redis answer', async () => {
    const res = await api.http.get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', details: { database: { status: 'up' }, redis: { status: 'up' } } });
  });

  it('are not part of the OpenAPI document', async () => {
    const paths = Object.keys((await api.http.get('/v1/openapi.json')).body.paths);
    expect(paths).not.toContain('/healthz');
    expect(paths).not.toContain('/readyz');
  });

  describe('with Redis unreachable', () => {
    let broken: TestApi;

    beforeAll(async () => {
      broken = await startApi({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    });
    afterAll(() => broken.close());

    it('/readyz answers a 503 problem naming what is down, without internal details', async () => {
      const res = await broken.http.get('/readyz');
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      // As every 503 of the API: when to ask again.
      expect(res.headers['retry-after']).toBe('2');
      expect(res.body).toMatchObject({
        status: 503,
        detail_key: 'errors.common.service_unavailable',
        detail: 'Not ready: redis did not answer within 1 s.',
        checks: { database: 'up', redis: 'down' },
      });
      expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    });

    it('/healthz still answers 200: the process is alive', async () => {
      expect((await broken.http.get('/healthz')).status).toBe(200);
    });
  });
});
