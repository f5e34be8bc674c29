import { parse } from 'pg-connection-string';
import { migrate, unansweredQueryMs, withSessionSettings } from './database.js';

describe('unansweredQueryMs', () => {
  it('waits the statement timeout and 2 s more, never past what a Node timer can wait (a longer one fires at once)', () => {
    expect(unansweredQueryMs({ DATABASE_STATEMENT_TIMEOUT_MS: 10_000 })).toBe(12_000);
    expect(unansweredQueryMs({ DATABASE_STATEMENT_TIMEOUT_MS: 2_147_483_647 })).toBe(2_147_483_647);
  });
});

describe('withSessionSettings', () => {
  const read = (url: string) => parse(withSessionSettings(url, { jit: 'off', synchronous_commit: 'off' }));

  it("adds the settings after the options the URL gives, as pg reads the string, leaving the rest of it as it was", () => {
    expect(read('postgres://postgres@127.0.0.1:5432/db')).toMatchObject({ host: '127.0.0.1', database: 'db', options: '-c jit=off -c synchronous_commit=off' });
    expect(read('postgres://h/db?options=-c%20statement_timeout%3D5000&application_name=x')).toMatchObject({
      options: '-c statement_timeout=5000 -c jit=off -c synchronous_commit=off',
      application_name: 'x',
    });
    expect(read('postgres:///integrations?host=/var/run/postgresql')).toMatchObject({ host: '/var/run/postgresql', database: 'integrations', options: '-c jit=off -c synchronous_commit=off' });
    expect(read('postgres://h/db#fragment')).toMatchObject({ database: 'db', options: '-c jit=off -c synchronous_commit=off' });
    expect(read('postgres://h/db?options=-c%20a%3D1&options=-c%20b%3D2')).toMatchObject({ options: '-c b=2 -c jit=off -c synchronous_commit=off' });
  });

  it('keeps a password pg takes as it is: a plus, an escape, and an invalid escape (pg then re-encodes the whole string)', () => {
    expect(read('postgres://u:a+b@h/db')).toMatchObject({ user: 'u', password: 'a+b', options: '-c jit=off -c synchronous_commit=off' });
    expect(read('postgres://u:a%40b@h/db')).toMatchObject({ password: 'a@b', options: '-c jit=off -c synchronous_commit=off' });
    expect(read('postgres://u:p%zz@h/db')).toMatchObject({ password: 'p%zz', options: '-c jit=off -c synchronous_commit=off' });
  });
});

describe('migrate, when the server cannot be reached', () => {
  it.each([
    ['postgres:///db?host=/var/run/no-such-dir&user=u&password=hunter2', '/var/run/no-such-dir:5432'],
    ['postgres:///db?host=127.0.0.1&port=1&user=u&password=hunter2', '127.0.0.1:1'],
    ['postgres://u:hunter2@127.0.0.1:1/db', '127.0.0.1:1'],
  ])('names the server %s points to, as pg reads it, and never its password', async (url, server) => {
    const failed = await migrate(url).catch((error: Error) => error);
    expect((failed as Error).message).toMatch(new RegExp(`^cannot connect to PostgreSQL at ${server.replace(/[./]/g, '\\$&')} \\(DATABASE_URL\\): `));
    expect((failed as Error).message).not.toContain('hunter2');
  });
});
