// The baseline the service is measured against: bare node:http + pg doing the same work per
// request (API key lookup by prefix, constant-time SHA-256 check, active-company check, then
// the same invoice query) with none of the framework. Started by bench/run.js.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const KEY = /^Bearer oh_live_([a-z0-9]{12})_([A-Za-z0-9]{43})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const INVOICE_COLUMNS = process.env.BENCH_INVOICE_COLUMNS ?? '*';

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function authenticate(header) {
  const match = KEY.exec(header ?? '');
  if (!match) return null;
  const { rows } = await pool.query(
    `SELECT k.tenant_id, k.secret_hash, t.active FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
      WHERE k.prefix = $1 AND k.revoked_at IS NULL AND k.deleted_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())`,
    [match[1]],
  );
  const hash = createHash('sha256').update(match[2]).digest();
  if (rows.length === 0 || !timingSafeEqual(hash, rows[0].secret_hash) || !rows[0].active) return null;
  return rows[0].tenant_id;
}

const server = createServer(async (req, res) => {
  try {
    const tenantId = await authenticate(req.headers.authorization);
    if (!tenantId) return send(res, 401, { detail: 'unauthenticated' });
    const url = new URL(req.url, 'http://localhost');
    const id = /^\/v1\/invoices\/([^/]+)$/.exec(url.pathname)?.[1];
    if (id !== undefined) {
      if (!UUID.test(id)) return send(res, 422, { detail: 'invalid id' });
      const { rows } = await pool.query(`SELECT ${INVOICE_COLUMNS} FROM invoices WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
      return rows.length ? send(res, 200, rows[0]) : send(res, 404, { detail: 'not found' });
    }
    if (url.pathname === '/v1/invoices') {
      const limit = Math.min(100, Math.max(1, Number(url.searchParams.get('limit') ?? 50)));
      const { rows } = await pool.query(
        `SELECT ${INVOICE_COLUMNS} FROM invoices WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
        [tenantId, limit + 1],
      );
      return send(res, 200, { data: rows.slice(0, limit), next_cursor: null, has_more: rows.length > limit });
    }
    send(res, 404, { detail: 'no route' });
  } catch (error) {
    send(res, 500, { detail: String(error) });
  }
});

server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
