import { METHODS } from 'node:http';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Application } from 'express';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { FEATURE_TAGS, FEATURES, loadAreaSummaries, READ_RESOURCES } from '../src/app/features.js';
import { Errors, resourceErrors } from '../src/platform/catalog/errors.js';
import { EVENT_DATA_SCHEMAS } from '../src/platform/catalog/event-data-schemas.js';
import { EVENT_TYPES, EventCatalog } from '../src/platform/catalog/event-types.js';
import { buildOpenApiDocument } from '../src/platform/openapi/openapi-document.js';
import { ReadResourcesModule } from '../src/platform/resources/read-resources.module.js';
import { runCli } from './support/cli.js';
import { startApi, type TestApi } from './support/api.js';
import { modernClient, startMcp, type TestMcp } from './support/mcp.js';
import { Widget, WIDGETS_MIGRATION } from './support/widgets/widget.js';
import { widgetsResource } from './support/widgets/widgets.resource.js';

/** The read routes the running app serves (GET only, the catch-all method routes left out). */
function readRoutes(app: TestApi['app']): string[] {
  const stack = ((app.getHttpAdapter().getInstance() as Application).router as unknown as {
    stack: { route?: { path: string; methods: Record<string, boolean> } }[];
  }).stack;
  const served = stack.flatMap(({ route }) => {
    if (!route) return [];
    const methods = Object.keys(route.methods).filter((method) => route.methods[method]);
    if (METHODS.every((method) => methods.includes(method.toLowerCase()))) return [];
    return methods.filter((method) => method === 'get').map(() => route.path);
  });
  // The catalogue of event types and the events feed are served beside the resources, not as ones.
  return served.filter((path) => /^\/v1\/(?!openapi|webhook_endpoints|event_types|events(\/|$))/.test(path)).sort();
}

const routesOf = (resources: readonly { name: string }[]) => resources.flatMap((resource) => [`/v1/${resource.name}`, `/v1/${resource.name}/:id`]).sort();

/**
 * The registry, gathered from the features' manifests, is the single source of the readable
 * resources: the REST routes, the agent tools, the error keys, the OpenAPI tags and the event
 * data components the running app has are exactly those derived from it.
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

  it('names each resource once, snake_case, and none clashes with a catalogued error key', () => {
    const names = READ_RESOURCES.map((resource) => resource.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z]+(?:_[a-z]+)*$/);
    const catalogued = new Set(Object.values(Errors).map((error) => error.detailKey));
    for (const name of names) {
      const keys = resourceErrors(name);
      expect(catalogued.has(keys.invalidCursor.detailKey) || catalogued.has(keys.notFound.detailKey)).toBe(false);
    }
  });

  it('the REST API serves exactly the list and retrieve routes the registry derives', () => {
    expect(readRoutes(api.app)).toEqual(routesOf(READ_RESOURCES));
  });

  it('the agent-tool server derives its tools from the registry: resource tools in registry order, compact tools over every resource', async () => {
    const tenant = (await runCli('tenant:create', '--name', 'Registry Check')).json as { id: string; slug: string };
    const permissions = READ_RESOURCES.map((resource) => resource.scope.slice('int:'.length)).join(',');
    const user = (await runCli('user:create', '--tenant', tenant.id, '--email', 'registry@example.test', '--permissions', permissions)).json.id as string;
    const token = (await runCli('mcp-token:create', '--tenant', tenant.id, '--user', user, '--tools', '*')).json.token as string;
    const summaries = await loadAreaSummaries();

    const expected = [
      ...READ_RESOURCES.flatMap((resource) => ['list', 'get', 'search', 'recent'].map((verb) => `${verb}_${resource.name}`)),
      ...summaries.map((summary) => `summarise_${summary.area}`),
    ];
    const compact = await modernClient(mcp.base, token, tenant.slug);
    try {
      for (const tool of (await compact.listTools()).tools.filter((listed) => listed.name !== 'summarise')) {
        const properties = tool.inputSchema.properties as Record<string, { enum?: string[]; items?: { enum?: string[] } }>;
        expect([tool.name, properties.resource?.enum ?? properties.resources?.items?.enum]).toEqual([tool.name, READ_RESOURCES.map((resource) => resource.name)]);
      }
    } finally {
      await compact.close();
    }
    // The order of X-MCP-Tools does not matter: the catalogue's does.
    const client = await modernClient(mcp.base, token, tenant.slug, { 'X-MCP-Tools': [...expected].reverse().join(',') });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expected);
      expect(summaries.map((summary) => summary.area)).toEqual(FEATURES.filter((feature) => feature.summary).map((feature) => feature.name));
    } finally {
      await client.close();
    }
  });

  it("describes every resource's OpenAPI tag, from its feature's manifest", () => {
    const document = buildOpenApiDocument(api.app, api.config, FEATURE_TAGS);
    const tags = new Map((document.tags ?? []).map((tag) => [tag.name, tag.description]));
    for (const resource of READ_RESOURCES) expect(tags.get(resource.tag)).toEqual(expect.any(String));
    for (const tag of document.tags ?? []) expect(tag.description).toEqual(expect.any(String));
  });

  it("names as event data only event data schemas and the registry's item DTOs", () => {
    const components = new Set([...Object.keys(EVENT_DATA_SCHEMAS), ...READ_RESOURCES.map((resource) => resource.item.name)]);
    const named = EVENT_TYPES.map((type) => String(EventCatalog[type].dataSchema.$ref).replace('#/components/schemas/', ''));
    expect(named.filter((name) => !components.has(name))).toEqual([]);
    // Each resource is the data of at least one event type except documents', whose events carry their own schema.
    const used = new Set(named);
    expect(READ_RESOURCES.filter((resource) => used.has(resource.item.name)).length).toBeGreaterThan(0);
  });

  it("indexes every resource's table for its list and its recent changes", async () => {
    const dataSource = api.app.get(DataSource);
    const missing: string[] = [];
    for (const resource of READ_RESOURCES) {
      const table = dataSource.getMetadata(resource.entity).tableName;
      const rows: { indexdef: string }[] = await dataSource.query('SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1', [table]);
      for (const order of ['created_at', 'updated_at']) {
        if (!rows.some((row) => row.indexdef.endsWith(`(tenant_id, ${order} DESC, id DESC)`))) missing.push(`${table} (tenant_id, ${order} DESC, id DESC)`);
      }
    }
    expect(missing).toEqual([]);
  });
});

/**
 * Adding a resource, shown with the fixture under test/support/widgets: the entity and DTO
 * (widget.ts), the declaration (widgets.resource.ts), its line in a manifest (here the module
 * below), the migration (WIDGETS_MIGRATION) and this test, 5 files, give the routes, the error
 * keys, the OpenAPI operations and tag, and the index check.
 */
describe('a resource added in five files (e2e)', () => {
  @Module({ imports: [TypeOrmModule.forFeature([Widget]), ReadResourcesModule.register([widgetsResource], { routes: true })] })
  class WidgetsFixtureModule {}

  let api: TestApi;

  // The table's foreign key locks `tenants` against writes while it is made or dropped, so it
  // waits for other test files' long transactions there (seed:demo's 10,000 records), past the
  // pool's statement and query timeouts: a connection of its own, as migrate() runs migrations.
  const ddl = async (sql: string) => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    api = await startApi({ modules: [WidgetsFixtureModule] });
    await ddl(WIDGETS_MIGRATION);
  }, 120_000);
  afterAll(async () => {
    if (api) await ddl('DROP TABLE IF EXISTS widgets');
    await api?.close();
  }, 120_000);

  it('serves its list and retrieve routes, with its own error keys, and documents them under its tag', async () => {
    expect(readRoutes(api.app)).toEqual(routesOf([...READ_RESOURCES, widgetsResource]));

    const tenant = (await runCli('tenant:create', '--name', 'Widgets')).json as { id: string };
    const key = (await runCli('key:create', '--tenant', tenant.id, '--scopes', widgetsResource.scope)).json.key as string;
    await api.app.get(DataSource).query(`INSERT INTO widgets (tenant_id, label) VALUES ($1, 'Blue widget')`, [tenant.id]);

    const list = await api.http.get('/v1/widgets').set('Authorization', `Bearer ${key}`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([expect.objectContaining({ label: 'Blue widget' })]);

    const missing = await api.http.get('/v1/widgets/00000000-0000-4000-8000-000000000000').set('Authorization', `Bearer ${key}`);
    expect(missing.status).toBe(404);
    expect(missing.body.detail_key).toBe('errors.integrations.widgets.not_found');
    const badCursor = await api.http.get('/v1/widgets?cursor=nonsense').set('Authorization', `Bearer ${key}`);
    expect(badCursor.status).toBe(422);
    expect(badCursor.body.detail_key).toBe('errors.integrations.widgets.invalid_cursor');

    const document = buildOpenApiDocument(api.app, api.config, { ...FEATURE_TAGS, Widgets: 'Widgets (fixture).' });
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/v1/widgets', '/v1/widgets/{id}']));
    expect(document.paths['/v1/widgets']?.get?.tags).toEqual(['Widgets']);
    expect(document.tags).toContainEqual({ name: 'Widgets', description: 'Widgets (fixture).' });
  });
});
