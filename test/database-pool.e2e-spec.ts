import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/platform/database/database.js';

/** The pool every process gets (API, worker, MCP), on the real PostgreSQL. */
describe('database pool', () => {
  it('keeps the connections a burst opened: none is set to close when it goes idle', async () => {
    const dataSource = await new DataSource(dataSourceOptions(process.env.DATABASE_URL!)).initialize();
    try {
      const pool = (dataSource.driver as unknown as { master: Pool & { _idle: { timeoutId: unknown }[] } }).master;
      const pids = await Promise.all(Array.from({ length: 4 }, () => dataSource.query('SELECT pg_backend_pid() AS pid, pg_sleep(0.05)')));
      expect(new Set(pids.map(([row]) => row.pid)).size).toBe(4);
      expect(pool.totalCount).toBe(4);
      expect(pool.idleCount).toBe(4);
      // pg-pool arms a timer per idle connection when it would close it (by default after 10 s).
      expect(pool._idle.map((item) => item.timeoutId !== undefined)).toEqual([false, false, false, false]);
    } finally {
      await dataSource.destroy();
    }
  });

  it("starts every session with JIT off, after the options DATABASE_URL gives, for one company's statistics not to make every company's reads compile", async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.searchParams.set('options', '-c application_name=from-the-url');
    const dataSource = await new DataSource(dataSourceOptions(url.toString())).initialize();
    try {
      const [settings] = await dataSource.query(`SELECT current_setting('jit') AS jit, current_setting('application_name') AS name`);
      expect(settings).toEqual({ jit: 'off', name: 'from-the-url' });
    } finally {
      await dataSource.destroy();
    }
  });

  // Before: `01/12/2026` for a date read as text, null for a timestamp, and a 500 on every invoice created.
  it('reads dates and timestamps in ISO form whatever DateStyle the database or DATABASE_URL gives', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.searchParams.set('options', '-c DateStyle=SQL,DMY');
    const dataSource = await new DataSource(dataSourceOptions(url.toString())).initialize();
    try {
      const [row] = await dataSource.query(`SELECT DATE '2026-12-01'::text AS day, TIMESTAMPTZ '2026-12-01T10:20:30.456Z' AS at`);
      expect(row).toEqual({ day: '2026-12-01', at: new Date('2026-12-01T10:20:30.456Z') });
    } finally {
      await dataSource.destroy();
    }
  });
});
