import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve('src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Relative imports and re-exports of a file, type-only ones included unless `runtimeOnly`. */
function importsOf(file: string, runtimeOnly = false): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'(\.{1,2}\/[^']+)'/gms)]
    .filter(([statement]) => !runtimeOnly || !/^(?:import|export)\s+type\b/.test(statement))
    .map(([, target]) => resolve(dirname(file), target.replace(/\.js$/, '.ts')));
}

/** Every file of src/ that loading `entry` evaluates (static imports, type-only ones left out). */
function loadedBy(entry: string): Set<string> {
  const loaded = new Set<string>();
  const visit = (file: string): void => {
    if (loaded.has(file)) return;
    loaded.add(file);
    importsOf(file, true).forEach(visit);
  };
  visit(resolve(SRC, entry));
  return new Set([...loaded].map((file) => relative(SRC, file)));
}

/** Each cycle a depth-first walk of `graph` meets, as `a → b → a`. */
function cyclesOf(graph: ReadonlyMap<string, Iterable<string>>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const cycles: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    path.push(node);
    for (const target of graph.get(node) ?? []) {
      if (state.get(target) === 'open') cycles.push([...path.slice(path.indexOf(target)), target].join(' → '));
      else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

/**
 * No module of src/ imports itself back through others, not even for types only: a cycle
 * makes load order matter (a constant read before it is initialised) and muddles which
 * module depends on which.
 */
describe('import graph of src/', () => {
  it('has no cycles', () => {
    const files = sourceFiles(SRC);
    const graph = new Map(files.map((file) => [relative(SRC, file), importsOf(file).filter((target) => files.includes(target)).map((target) => relative(SRC, target))]));
    expect(files.length).toBeGreaterThan(100);
    expect(cyclesOf(graph)).toEqual([]);
  });
});

/**
 * The folders of src/platform/ form layers: no folder imports, through any of its files, a
 * folder that imports it back, directly or through others (types included). A folder that
 * needs another's file and is needed by it keeps a muddled boundary; the fix is to move the
 * file to the layer it belongs to (as problem.filter.ts went to http/, the route decorators to
 * route-access/ and the OpenAPI decorators to api-docs/).
 */
describe('folders of src/platform/', () => {
  it('have no cycles', () => {
    const platform = resolve(SRC, 'platform');
    const folderOf = (file: string) => relative(platform, file).split('/')[0];
    const files = sourceFiles(platform).filter((file) => relative(platform, file).includes('/'));
    const graph = new Map<string, Set<string>>();
    for (const file of files) {
      const from = folderOf(file);
      if (!graph.has(from)) graph.set(from, new Set());
      for (const target of importsOf(file)) {
        if (!target.startsWith(`${platform}/`) || !relative(platform, target).includes('/')) continue;
        const to = folderOf(target);
        if (to !== from) graph.get(from)!.add(to);
      }
    }
    expect(graph.size).toBeGreaterThan(20);
    expect(cyclesOf(graph)).toEqual([]);
  });
});

/**
 * Feature modules never import each other (docs/architecture.md): a file of a feature folder
 * imports its own folder and src/platform/ only, types included. When the platform must tell a
 * feature something, the feature registers a hook with it. Found missing by a review that added
 * a feature importing another's entity and seeder: no test said no.
 */
describe('feature folders of src/', () => {
  it('import their own folder and src/platform/ only', () => {
    const shared = new Set(['app', 'cli', 'platform']);
    const folderOf = (file: string) => relative(SRC, file).split('/')[0];
    const features = readdirSync(SRC, { withFileTypes: true }).filter((entry) => entry.isDirectory() && !shared.has(entry.name)).map((entry) => entry.name);
    expect(features).toEqual(expect.arrayContaining(['documents', 'finance', 'fleet', 'hr', 'mcp', 'support', 'webhooks']));
    const crossings = features.flatMap((feature) =>
      sourceFiles(resolve(SRC, feature)).flatMap((file) =>
        importsOf(file)
          .filter((target) => folderOf(target) !== feature && folderOf(target) !== 'platform')
          .map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`),
      ),
    );
    expect(crossings).toEqual([]);
  });
});

/**
 * A process loads the module graph of the roles it runs only (src/main.ts imports each role's
 * factory when the role is on): the API role holds neither the agent-tool server, its SDK and
 * zod schemas nor the worker's delivery code in memory.
 */
describe('module graph of each role', () => {
  it('the entry point loads no role by itself', () => {
    expect([...loadedBy('main.ts')].filter((file) => file.startsWith('app/'))).toEqual([]);
  });

  it('the API role loads neither the agent-tool server (nor its summaries) nor the worker modules, which the manifests import lazily', () => {
    const api = [...loadedBy('app/create-api-app.ts')];
    expect(api.filter((file) => /^mcp\/(?:tool-server|mcp-server|mcp-http|tools\/)/.test(file) || /summar|worker|delivery-attempt|webhook-sender/.test(file))).toEqual([]);
    expect(api).toContain('app/features.ts');
  });
});
