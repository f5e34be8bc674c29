import { METHODS } from 'node:http';
import type { Application } from 'express';
import { AREA_SUMMARIES } from '../src/app/area-summaries.js';
import { READ_RESOURCES } from '../src/app/read-resources.js';
import { LIST_RESOURCES } from '../src/platform/catalog/errors.js';
import { runCli } from './support/cli.js';
import { startApi, type TestApi } from './support/api.js';
import { modernClient, startMcp, type TestMcp } from './support/mcp.js';

/**
 * The registry is the single source of the readable resources: the REST routes and the agent
 * tools the running app serves are exactly those derived from it.
 */
describe('resource registry (e2e)', () => {
  let api: TestApi;
  let mcp: TestMcp;

  beforeAll(async () => {
    api = await startApi();
    mcp = await startMcp();
  });
  afterAll(async () => {
    await api?.close();
    await mcp?.close();
  });

  it('declares every catalogued resource exactly once', () => {
    expect(READ_RESOURCES.map((resource) => resource.name).sort()).toEqual([...LIST_RESOURCES].sort());
  });

  it('the REST API serves exactly the list and retrieve routes the registry derives', () => {
    const stack = ((api.app.getHttpAdapter().getInstance() as Application).router as unknown as {
      stack: { route?: { path: string; methods: Record<string, boolean> } }[];
    }).stack;
    const served = stack.flatMap(({ route }) => {
      if (!route) return [];
      const methods = Object.keys(route.methods).filter((method) => route.methods[method]);
      if (METHODS.every((method) => methods.includes(method.toLowerCase()))) return [];
      return methods.filter((method) => method === 'get').map(() => route.path);
    });
    // The catalogue of event types is served beside the resources, not as one.
    const readRoutes = served.filter((path) => /^\/v1\/(?!openapi|webhook_endpoints|event_types)/.test(path)).sort();
    const expected = READ_RESOURCES.flatMap((resource) => [`/v1/${resource.name}`, `/v1/${resource.name}/:id`]).sort();
    expect(readRoutes).toEqual(expected);
  });

  it('the agent-tool server lists exactly the tools the registry derives, in registry order', async () => {
    const tenant = (await runCli('tenant:create', '--name', 'Registry Check')).json as { id: string; slug: string };
    const permissions = READ_RESOURCES.map((resource) => resource.scope.slice('int:'.length)).join(',');
    const user = (await runCli('user:create', '--tenant', tenant.id, '--email', 'registry@example.test', '--permissions', permissions)).json.id as string;
    const token = (await runCli('mcp-token:create', '--tenant', tenant.id, '--user', user, '--tools', '*')).json.token as string;

    const client = await modernClient(mcp.base, token, tenant.slug);
    try {
      const { tools } = await client.listTools();
      const expected = [
        ...READ_RESOURCES.flatMap((resource) => ['list', 'get', 'search', 'recent'].map((verb) => `${verb}_${resource.name}`)),
        ...AREA_SUMMARIES.map((summary) => `summarise_${summary.area}`),
      ];
      expect(tools.map((tool) => tool.name)).toEqual(expected);
      expect(expected).toHaveLength(12 * 4 + 5);
    } finally {
      await client.close();
    }
  });
});
