import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { loadConfig } from '../src/platform/config/app-config.js';

/**
 * Docker cannot run on the development machines, so docker/compose.yaml is checked here: each
 * service of the image gets its environment as Compose would interpolate it (from docker/.env),
 * plus the image's ENV, and the real configuration validator must accept it.
 */
const compose = parse(readFileSync('docker/compose.yaml', 'utf8'), { merge: true }) as {
  services: Record<string, { image?: string; environment?: Record<string, string> }>;
};
const imageEnv = Object.fromEntries(
  [...readFileSync('docker/Dockerfile', 'utf8').matchAll(/^ENV (\w+)=(\S+)$/gm)].map(([, name, value]) => [name, value]),
);
const dotEnv = { SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'), CURSOR_SECRET: Buffer.alloc(32, 9).toString('base64') };

/** Compose's interpolation: `${VAR}`, `${VAR:-default}` and `${VAR:?message}` (which stops Compose with the message). */
function interpolate(value: string, variables: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind: string | undefined, text: string) => {
    const set = variables[name];
    if (set !== undefined && set !== '') return set;
    if (kind === '?') throw new Error(`required variable ${name} is missing a value: ${text}`);
    return kind === '-' ? text : '';
  });
}

function environmentOf(service: string, variables: Record<string, string>): Record<string, string> {
  const raw = compose.services[service].environment ?? {};
  return { ...imageEnv, ...Object.fromEntries(Object.entries(raw).map(([name, value]) => [name, interpolate(String(value), variables)])) };
}

const appServices = Object.keys(compose.services).filter((name) => compose.services[name].image === 'integrations-api:local');

describe('docker/compose.yaml', () => {
  it('runs the api, mcp and worker roles from the image, in production mode', () => {
    expect(appServices.sort()).toEqual(['api', 'mcp', 'worker']);
    expect(imageEnv.NODE_ENV).toBe('production');
    expect(appServices.map((name) => environmentOf(name, dotEnv).APP_ROLES).sort()).toEqual(['api', 'mcp', 'worker']);
  });

  it.each(['api', 'mcp', 'worker'])('gives %s an environment the production configuration accepts', (service) => {
    const config = loadConfig(environmentOf(service, dotEnv));
    expect(config.production).toBe(true);
    expect(config.SECRETS_KEY).toBe(dotEnv.SECRETS_KEY);
  });

  it('stops with a message naming docker/.env when the secrets are missing', () => {
    expect(() => environmentOf('api', {})).toThrow(/required variable SECRETS_KEY is missing a value: .*docker\/\.env/);
    expect(() => environmentOf('worker', { SECRETS_KEY: dotEnv.SECRETS_KEY })).toThrow(/CURSOR_SECRET .*docker\/\.env/);
  });

  it('documents in its header the one line that makes docker/.env', () => {
    expect(readFileSync('docker/compose.yaml', 'utf8')).toContain(`printf 'SECRETS_KEY=%s\\nCURSOR_SECRET=%s\\n' "$(openssl rand -base64 32)" "$(openssl rand -base64 32)" > docker/.env`);
  });
});
