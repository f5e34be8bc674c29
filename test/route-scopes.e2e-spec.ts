import { METHODS } from 'node:http';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import type { Application } from 'express';
import { PUBLIC_METADATA, SCOPES_METADATA } from '../src/platform/route-access/require-scopes.decorator.js';
import { startApi, type TestApi } from './support/api.js';

interface DeclaredRoute {
  method: string;
  path: string;
  handler: string;
  scopes: string[] | undefined;
  isPublic: boolean;
}

const asList = (value: string | string[] | undefined): string[] => (Array.isArray(value) ? value : [value ?? '']);
const joinPath = (...parts: string[]) => `/${parts.join('/')}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');

/** Every controller method of the application with its HTTP method, path and access declaration. */
function declaredRoutes(api: TestApi): DeclaredRoute[] {
  const reflector = api.app.get(Reflector);
  const scanner = new MetadataScanner();
  return [...api.app.get(ModulesContainer).values()]
    .flatMap((module) => [...module.controllers.values()])
    .flatMap(({ metatype }) => {
      if (!metatype) return [];
      const prototype = metatype.prototype as Record<string, (...args: unknown[]) => unknown>;
      return scanner.getAllMethodNames(prototype).flatMap((name) => {
        const handler = prototype[name];
        const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (requestMethod === undefined) return [];
        const targets = [handler, metatype];
        return asList(Reflect.getMetadata(PATH_METADATA, metatype)).flatMap((base) =>
          asList(Reflect.getMetadata(PATH_METADATA, handler)).map((path) => ({
            method: RequestMethod[requestMethod],
            path: joinPath(base, path),
            handler: `${metatype.name}.${name}`,
            scopes: reflector.getAllAndOverride<string[] | undefined>(SCOPES_METADATA, targets),
            isPublic: reflector.getAllAndOverride<boolean | undefined>(PUBLIC_METADATA, targets) === true,
          })),
        );
      });
    });
}

/** What the express router actually serves, minus routes for every method (Nest's middleware). */
function mountedRoutes(api: TestApi): { method: string; path: string }[] {
  const stack = ((api.app.getHttpAdapter().getInstance() as Application).router as unknown as { stack: { route?: { path: string; methods: Record<string, boolean> } }[] }).stack;
  return stack.flatMap(({ route }) => {
    if (!route) return [];
    const methods = Object.keys(route.methods).filter((method) => route.methods[method]);
    if (METHODS.every((method) => methods.includes(method.toLowerCase()))) return [];
    return methods.map((method) => ({ method: method.toUpperCase(), path: route.path }));
  });
}

/**
 * The permission map of the production application (no test modules): every route with the
 * scopes it requires, or `public`. A change of permissions shows up as a reviewed snapshot diff
 * (`npm run test:jest -- test/route-scopes -u` to accept it).
 */
describe('route scopes (production application)', () => {
  let api: TestApi;
  let declared: DeclaredRoute[];
  let mounted: { method: string; path: string }[];

  beforeAll(async () => {
    api = await startApi();
    declared = declaredRoutes(api);
    mounted = mountedRoutes(api);
  });
  afterAll(() => api.close());

  it('declares @RequireScopes, @AnyApiKey or @Public, never both and never neither, on every controller route', () => {
    expect(declared.length).toBeGreaterThan(0);
    const undeclared = declared.filter((route) => !route.isPublic && route.scopes === undefined).map((route) => route.handler);
    const contradictory = declared.filter((route) => route.isPublic && route.scopes !== undefined).map((route) => route.handler);
    expect(undeclared).toEqual([]);
    expect(contradictory).toEqual([]);
  });

  it('mounts exactly the declared routes, plus Swagger UI under /docs', () => {
    const key = (route: { method: string; path: string }) => `${route.method} ${route.path}`;
    const declaredKeys = new Set(declared.map(key));
    expect(mounted.filter((route) => declaredKeys.has(key(route))).map(key).sort()).toEqual([...declaredKeys].sort());
    const outsideNest = mounted.filter((route) => !declaredKeys.has(key(route)));
    expect(outsideNest.length).toBeGreaterThan(0);
    for (const route of outsideNest) expect(route).toMatchObject({ method: 'GET', path: expect.stringMatching(/^\/docs(\/|$)/) });
  });

  it('matches the committed permission map', () => {
    const declaredKeys = new Map(declared.map((route) => [`${route.method} ${route.path}`, route]));
    const rows = mounted.map((route) => {
      const nest = declaredKeys.get(`${route.method} ${route.path}`);
      const access = !nest ? 'public (Swagger UI)' : nest.isPublic ? 'public' : nest.scopes!.length === 0 ? 'any valid key' : nest.scopes!.join(' + ');
      return `${route.method.padEnd(7)}${route.path.padEnd(64)}${access}`;
    });
    expect(`\n${[...new Set(rows)].sort().join('\n')}\n`).toMatchSnapshot();
  });
});
