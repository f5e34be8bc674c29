import { readFileSync } from 'node:fs';
import { AppConfig, ConfigError, loadConfig } from './app-config.js';

describe('loadConfig', () => {
  it('uses the defaults of operations.md', () => {
    const config = loadConfig({});
    expect(config.DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/integrations');
    expect(config.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(config.PORT).toBe(3000);
    expect(config.MCP_PORT).toBe(3001);
    expect(config.APP_ROLES).toEqual(['api', 'mcp', 'worker']);
    expect(config.publicBaseUrl).toBe('http://localhost:3000');
    expect(config.errorsBaseUrl).toBe('http://localhost:3000/errors');
    expect(config.WEBHOOK_ALLOWED_CIDRS).toEqual([]);
    expect(config.WEBHOOK_ALLOW_HTTP).toBe(false);
    expect(config.WEBHOOK_RETRY_SCHEDULE_MS).toEqual([5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000]);
    expect(config.WEBHOOK_TIMEOUT_MS).toBe(15000);
    expect(config.LOG_LEVEL).toBe('info');
  });

  it('parses lists, numbers and booleans', () => {
    const config = loadConfig({
      APP_ROLES: 'api, worker',
      PORT: '8080',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8,10.0.0.0/8',
      PUBLIC_BASE_URL: 'https://api.example.com/',
      ERRORS_BASE_URL: 'https://errors.example.com',
    });
    expect(config.APP_ROLES).toEqual(['api', 'worker']);
    expect(config.PORT).toBe(8080);
    expect(config.WEBHOOK_ALLOW_HTTP).toBe(true);
    expect(config.WEBHOOK_ALLOWED_CIDRS).toEqual(['127.0.0.0/8', '10.0.0.0/8']);
    expect(config.publicBaseUrl).toBe('https://api.example.com');
    expect(config.errorsBaseUrl).toBe('https://errors.example.com');
  });

  it('takes one address as a WEBHOOK_ALLOWED_CIDRS entry, and an IPv6 range with a warning that it never matches', () => {
    expect(loadConfig({ WEBHOOK_ALLOWED_CIDRS: '10.0.0.7,127.0.0.0/8' }).webhookSafetyRelaxed).toEqual([
      'WEBHOOK_ALLOWED_CIDRS=10.0.0.7,127.0.0.0/8 (URLs may resolve to these non-public ranges)',
    ]);
    expect(loadConfig({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8,::1/128' }).webhookSafetyRelaxed).toContain(
      'WEBHOOK_ALLOWED_CIDRS names IPv6 ranges, which never match: deliveries use IPv4 addresses only',
    );
    // An IPv4-mapped address is its IPv4 address.
    expect(loadConfig({ WEBHOOK_ALLOWED_CIDRS: '::ffff:127.0.0.1' }).webhookSafetyRelaxed).toHaveLength(1);
  });

  it.each([
    ['DATABASE_URL', 'postgres://postgres@127.0.0.1:5432', /DATABASE_URL: .* a database name/],
    ['DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/', /DATABASE_URL: .* a database name/],
    ['REDIS_URL', 'redis://127.0.0.1:6379/abc', /REDIS_URL: .* a database number or none/],
    ['PUBLIC_BASE_URL', 'http://user:pw@localhost:3500/', /PUBLIC_BASE_URL: must be an http or https URL without query, fragment or credentials/],
    ['PUBLIC_BASE_URL', 'http://localhost:3500/?x=1', /PUBLIC_BASE_URL: must be/],
    ['ERRORS_BASE_URL', 'http://localhost:3500/errors#frag', /ERRORS_BASE_URL: must be/],
    ['WEBHOOK_DISABLE_GONE_STREAK', '100000000000000000000', /WEBHOOK_DISABLE_GONE_STREAK must not be greater than 1000000000/],
    ['RATE_LIMIT_PER_SECOND', '999999999999999999999', /RATE_LIMIT_PER_SECOND must not be greater than 1000000000/],
    ['WEBHOOK_DISABLE_FAILURE_PERIOD_MS', '1e20', /WEBHOOK_DISABLE_FAILURE_PERIOD_MS/],
    // Read as development before: a production deployment then ran on a generated SECRETS_KEY.
    ['NODE_ENV', 'Production', /NODE_ENV must be one of the following values: production, development, test/],
    ['NODE_ENV', 'prod', /NODE_ENV must be one of/],
  ])('refuses %s=%s at start, naming it', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('takes a Redis database number, a path-only base URL and the largest counts', () => {
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379/3', PUBLIC_BASE_URL: 'https://api.example.com/base/' })).toMatchObject({ publicBaseUrl: 'https://api.example.com/base' });
    expect(loadConfig({ DATABASE_URL: 'postgres:///db?host=/var/run/postgresql', RATE_LIMIT_PER_SECOND: '1000000000' }).RATE_LIMIT_PER_SECOND).toBe(1_000_000_000);
  });

  it('accepts the longest timer, 2147483647 ms', () => {
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '2147483647', WEBHOOK_TIMEOUT_MS: '2147483647' })).toMatchObject({ DATABASE_STATEMENT_TIMEOUT_MS: 2147483647, WEBHOOK_TIMEOUT_MS: 2147483647 });
  });

  it("defaults PUBLIC_BASE_URL to operations.md's http://localhost:3000 whatever PORT is, with a warning when the port differs", () => {
    expect(loadConfig({})).toMatchObject({ publicBaseUrl: 'http://localhost:3000', errorsBaseUrl: 'http://localhost:3000/errors', publicBaseUrlWarning: undefined });
    const elsewhere = loadConfig({ PORT: '8080' });
    expect(elsewhere).toMatchObject({ publicBaseUrl: 'http://localhost:3000', errorsBaseUrl: 'http://localhost:3000/errors' });
    expect(elsewhere.publicBaseUrlWarning).toMatch(/^PUBLIC_BASE_URL is unset, .* name http:\/\/localhost:3000 while the REST API listens on port 8080/);
    expect(loadConfig({ PORT: '8080', APP_ROLES: 'worker' }).publicBaseUrlWarning).toBeUndefined();
    const set = loadConfig({ PORT: '8080', PUBLIC_BASE_URL: 'https://api.example.com' });
    expect(set).toMatchObject({ publicBaseUrl: 'https://api.example.com', publicBaseUrlWarning: undefined });
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['APP_ROLES', 'api,cron'],
    ['WEBHOOK_ALLOW_HTTP', 'yes'],
    ['WEBHOOK_RETRY_SCHEDULE_MS', '1,2,3'],
    ['WEBHOOK_ALLOWED_CIDRS', 'localhost'],
    ['WEBHOOK_ALLOWED_CIDRS', '999.0.0.0/8'],
    ['WEBHOOK_ALLOWED_CIDRS', '127.1'],
    // Octal to ipaddr.js: 10.0.0.8, not what was written.
    ['WEBHOOK_ALLOWED_CIDRS', '10.0.0.010/32'],
    ['WEBHOOK_ALLOWED_CIDRS', '0x7f.0.0.1/8'],
    ['SECRETS_KEY', 'too-short'],
    ['DATABASE_URL', 'mysql://x'],
    ['LOG_LEVEL', 'loud'],
    ['METRICS_PORT', '70000'],
    ['AUTH_FAILURES_PER_MINUTE', '0'],
    ['TRUST_PROXY', 'x;y'],
    // What proxy-addr cannot compile failed the start later, in express, naming no variable.
    ['TRUST_PROXY', 'foo'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', 'loopback,true'],
    // Past 2^31 - 1 ms a Node timer fires at once and pg fails the connection.
    ['DATABASE_STATEMENT_TIMEOUT_MS', '2147483648'],
    ['WEBHOOK_TIMEOUT_MS', '2147483648'],
    ['WEBHOOK_SWEEP_INTERVAL_MS', '2147483648'],
    ['WEBHOOK_CIRCUIT_COOLDOWN_MS', '2147483648'],
    ['WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS', '2147483648'],
    ['HTTP_REQUEST_TIMEOUT_MS', '2147483648'],
    ['WEBHOOK_RETRY_SCHEDULE_MS', '1,2,3,4,5,6,2147483648'],
  ])('refuses %s=%s and names the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}:`));
  });

  it.each([
    ['PORT', 'abc', 'PORT: PORT must be an integer number'],
    ['PORT', '70000', 'PORT: PORT must not be greater than 65535'],
    ['MCP_PORT', '-1', 'MCP_PORT: MCP_PORT must not be less than 0'],
    ['CURSOR_SECRET', 'short', 'CURSOR_SECRET: CURSOR_SECRET must be at least 32 characters (openssl rand -base64 32)'],
  ])('gives for %s=%s the one reason that applies', (name, value, reason) => {
    expect(() => loadConfig({ [name]: value })).toThrow(`Invalid configuration:\n  ${reason}\n`.trimEnd());
    expect(() => loadConfig({ [name]: value })).not.toThrow(/;/);
  });

  it('gives every independent reason of a list: its length and its elements', () => {
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE_MS: 'x,1' })).toThrow(/WEBHOOK_RETRY_SCHEDULE_MS: .*at least 7 elements.*; .*integer/);
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE_MS: '-5,1,1,1,1,1,1,1' })).toThrow(/no more than 7 elements.*; .*not be less than 0/);
  });

  it.each([
    ['REDIS_URL', 'redis://:hunter2@127.0.0.1:99999'],
    ['REDIS_URL', 'redis://:hunter2@'],
    ['REDIS_URL', 'http://:hunter2@127.0.0.1:6379'],
    ['DATABASE_URL', 'postgres://postgres:hunter2@127.0.0.1:99999/db'],
    ['DATABASE_URL', 'postgres://postgres:hunter2@[::1/db'],
  ])('refuses %s=%s whole, before a client library parses it, without repeating its password', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}: must be a`));
    expect(() => loadConfig({ [name]: value })).not.toThrow(/hunter2/);
  });

  it('takes service URLs with a password, a host name and a database, or a socket directory', () => {
    const config = loadConfig({ REDIS_URL: 'rediss://user:pw@redis:6380/2', DATABASE_URL: 'postgres:///integrations?host=/var/run/postgresql' });
    expect([config.REDIS_URL, config.DATABASE_URL]).toEqual(['rediss://user:pw@redis:6380/2', 'postgres:///integrations?host=/var/run/postgresql']);
  });

  it('reads the metrics port, the failed-authentication limit and the trusted proxies', () => {
    const defaults = loadConfig({});
    expect([defaults.METRICS_PORT, defaults.AUTH_FAILURES_PER_MINUTE, defaults.trustProxy]).toEqual([undefined, 30, false]);
    const config = loadConfig({ METRICS_PORT: '9464', AUTH_FAILURES_PER_MINUTE: '5', TRUST_PROXY: '1' });
    expect([config.METRICS_PORT, config.AUTH_FAILURES_PER_MINUTE, config.trustProxy]).toEqual([9464, 5, 1]);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback, 10.0.0.0/8');
    expect(loadConfig({ TRUST_PROXY: 'uniquelocal,192.168.1.1,fe80::/10' }).trustProxy).toBe('uniquelocal,192.168.1.1,fe80::/10');
  });

  it('refuses to sunset the current version, which answered 410 "use" itself while serving every request without OH-Version', () => {
    expect(() => loadConfig({ API_SUNSET_VERSIONS: '2025-01-01,2026-05-16' })).toThrow('API_SUNSET_VERSIONS: 2026-05-16 is the current version');
    expect(loadConfig({ API_SUNSET_VERSIONS: '2025-01-01' }).API_SUNSET_VERSIONS).toEqual(['2025-01-01']);
  });

  it('refuses a port two servers of the process would both listen on, naming the second', () => {
    expect(() => loadConfig({ PORT: '4000', MCP_PORT: '4000' })).toThrow('MCP_PORT: 4000 is also PORT; each server of this process needs its own port');
    expect(() => loadConfig({ METRICS_PORT: '3001' })).toThrow('METRICS_PORT: 3001 is also MCP_PORT');
    // Only the servers of the roles this process runs; 0 asks the system for a free port each time.
    expect(loadConfig({ PORT: '4000', MCP_PORT: '4000', APP_ROLES: 'api,worker' }).PORT).toBe(4000);
    expect(loadConfig({ PORT: '0', MCP_PORT: '0', METRICS_PORT: '0' }).MCP_PORT).toBe(0);
  });

  it('requires SECRETS_KEY when NODE_ENV=production and never prints its value', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/SECRETS_KEY: required when NODE_ENV=production/);
    const key = 'q'.repeat(43) + '=';
    expect(loadConfig({ NODE_ENV: 'production', SECRETS_KEY: key }).SECRETS_KEY).toBe(key);
    expect(loadConfig({ NODE_ENV: 'development' }).SECRETS_KEY).toBeUndefined();
    expect(() => loadConfig({ SECRETS_KEY: 'x'.repeat(40) })).toThrow(expect.objectContaining({ message: expect.not.stringContaining('x'.repeat(40)) }));
  });

  it('reads every variable the README documents, and only those: no second, hidden list', () => {
    const readme = readFileSync('README.md', 'utf8');
    const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Administration CLI'));
    const documented = [...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map(([, name]) => name).sort();
    expect(documented.length).toBeGreaterThan(10);
    expect(Object.keys(new AppConfig()).sort()).toEqual(documented);
    expect(loadConfig({ CURSOR_SECRET: 's'.repeat(32), ERRORS_BASE_URL: 'https://errors.example.com' })).toMatchObject({
      CURSOR_SECRET: 's'.repeat(32),
      errorsBaseUrl: 'https://errors.example.com',
    });
  });
});
