// The floor the service is measured against: bare node:http doing exactly the service's work per
// request with the service's shortcuts and no framework. The API key comes from an in-memory
// cache with the service's 10 s expiry (one prepared statement on a miss) and its secret is
// checked with SHA-256 in constant time every time; the per-key and per-company limits are counted
// by the service's own RateLimiterService (one Redis round trip for a cached key); the invoice, or the list
// page, is the service's own prepared statement with the lines as JSON, mapped by the service's
// own function and answered with the same members (a signed cursor on the list); the events
// feed's first page is the feed's own two statements (the company's publishing horizon, then the page below it)
// and renderer for the types the key may see. No logging, no
// headers beyond the body's. bench/run.js starts it with the V8 flags every role of the service
// sets, set as the service sets them, before anything else is loaded (`--import` of
// `set-v8-flags.js`), so that neither side is measured with a runtime setting the other has not.
// Started by bench/run.js.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';
import { INVOICE_READS, invoiceDtoOfRow } from '../dist/finance/invoice-rows.js';
import { AccessService } from '../dist/platform/access/access.service.js';
import { EVENT_TYPES, EventCatalog } from '../dist/platform/catalog/event-types.js';
import { CURRENT_API_VERSION } from '../dist/platform/versioning/api-version.js';
import { renderEvent } from '../dist/webhooks/delivery/webhook-envelope.js';
import { FEED_SQL } from '../dist/webhooks/events-feed/events-feed.service.js';
import { PUBLISHING_HORIZON_SQL, PUBLISHING_LOCK_NAMESPACE } from '../dist/platform/events/event-publisher.service.js';
import { CursorCodec } from '../dist/platform/pagination/cursor-codec.js';
import { budgetCut } from '../dist/platform/pagination/budgeted-page.js';
import { SESSION_SETTINGS, withSessionSettings } from '../dist/platform/database/database.js';
import { namedQuery } from '../dist/platform/database/hot-query.js';
import { RateLimiterService } from '../dist/platform/rate-limit/rate-limiter.service.js';

// The service's session settings (jit off), as every pool of the service has them.
const pool = new pg.Pool({ connectionString: withSessionSettings(process.env.DATABASE_URL, SESSION_SETTINGS), max: 10 });
const limiter = new RateLimiterService({
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  REDIS_PREFIX: `${process.env.REDIS_PREFIX}:floor`,
  RATE_LIMIT_PER_SECOND: Number(process.env.RATE_LIMIT_PER_SECOND),
  TENANT_RATE_LIMIT_PER_SECOND: Number(process.env.TENANT_RATE_LIMIT_PER_SECOND),
});
const keyWindows = limiter.windowsFor();
const cursors = new CursorCodec('bench-floor-cursor-secret');
const KEY = /^Bearer oh_live_([a-z0-9]{12})_([A-Za-z0-9]{43})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY_TTL_MS = 10_000;
const keys = new Map();
const access = new AccessService();

// Named statements read as the service reads its hot ones (`namedQuery`: rows as arrays, made into objects by a builder per statement).
const query = (name, text, values) => namedQuery(pool, name, text, values);

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function key(prefix) {
  const cached = keys.get(prefix);
  if (cached && cached.until > Date.now()) return cached.key;
  const [row] = await query(
    'floor-key',
    `SELECT k.id, k.tenant_id, k.secret_hash, k.scopes, k.revoked_at, k.deleted_at, k.expires_at, t.active
       FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.prefix = $1`,
    [prefix],
  );
  if (row) keys.set(prefix, { key: row, until: Date.now() + KEY_TTL_MS });
  return row;
}

/**
 * The key of a valid bearer, counted as the service counts it: a cached key with its company in
 * one round trip, a key not cached against its own limit while it is read, then its company's.
 */
async function authenticate(header) {
  const match = KEY.exec(header ?? '');
  if (!match) return null;
  const cached = keys.get(match[1]);
  const known = cached && cached.until > Date.now() ? cached.key : undefined;
  const [found, count] = await Promise.all([key(match[1]), limiter.consumeWithCompany(keyWindows, match[1], known?.tenant_id)]);
  if (found && count.key.allowed && !count.company) await limiter.consumeCompany(count.key, match[1], found.tenant_id);
  const hash = createHash('sha256').update(match[2]).digest();
  if (!found || !timingSafeEqual(hash, found.secret_hash) || found.revoked_at || found.deleted_at || (found.expires_at && found.expires_at <= new Date()) || !found.active) return null;
  return found;
}

const server = createServer(async (req, res) => {
  try {
    const caller = await authenticate(req.headers.authorization);
    if (!caller) return send(res, 401, { detail: 'unauthenticated' });
    const tenantId = caller.tenant_id;
    const url = new URL(req.url, 'http://localhost');
    const id = /^\/v1\/invoices\/([^/]+)$/.exec(url.pathname)?.[1];
    if (id !== undefined) {
      if (!UUID.test(id)) return send(res, 422, { detail: 'invalid id' });
      const [row] = await query('floor-invoice', INVOICE_READS.retrieve, [tenantId, id]);
      return row ? send(res, 200, invoiceDtoOfRow(row)) : send(res, 404, { detail: 'not found' });
    }
    if (url.pathname === '/v1/invoices') {
      const limit = Math.min(100, Math.max(1, Number(url.searchParams.get('limit') ?? 50)));
      const rows = await query('floor-invoices', INVOICE_READS.firstPage, [tenantId, limit + 1]);
      const shown = rows.slice(0, limit);
      const last = shown.at(-1);
      // The service's page may stop short at its line budget.
      const hasMore = rows.length > limit || budgetCut(rows);
      const next = hasMore ? cursors.encode(`invoices\n${tenantId}`, { createdAt: last.page_cursor_ts, id: last.id }) : null;
      return send(res, 200, { data: shown.map(invoiceDtoOfRow), next_cursor: next, has_more: hasMore });
    }
    if (url.pathname === '/v1/events') {
      // The feed's first page as the service reads it for a key that sees some types: one keyset range per type, merged.
      const limit = Math.min(100, Math.max(1, Number(url.searchParams.get('limit') ?? 50)));
      const types = EVENT_TYPES.filter((type) => access.eventVisible(caller.scopes, EventCatalog[type]));
      const [{ horizon }] = await query('floor-events-horizon', PUBLISHING_HORIZON_SQL, [tenantId, PUBLISHING_LOCK_NAMESPACE]);
      const rows = await query('floor-events', FEED_SQL.ofTypes, [tenantId, types, '-infinity', horizon, '00000000-0000-0000-0000-000000000000', limit + 1]);
      const shown = rows.slice(0, limit);
      const last = shown.at(-1);
      const hasMore = rows.length > limit || budgetCut(rows);
      const next = hasMore ? cursors.encode(`events\n*\n\n${tenantId}`, { createdAt: last.position_ts, id: last.id }) : null;
      return send(res, 200, { data: shown.map((row) => renderEvent(row.envelope, CURRENT_API_VERSION)), next_cursor: next, has_more: hasMore });
    }
    send(res, 404, { detail: 'no route' });
  } catch (error) {
    send(res, 500, { detail: String(error) });
  }
});

server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => Promise.all([pool.end(), limiter.onApplicationShutdown()]).then(() => process.exit(0))));
