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

/**
 * No module of src/ imports itself back through others, not even for types only: a cycle
 * makes load order matter (a constant read before it is initialised) and muddles which
 * module depends on which.
 */
describe('import graph of src/', () => {
  it('has no cycles', () => {
    const files = sourceFiles(SRC);
    const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => files.includes(target))]));
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const cycles: string[] = [];
    const visit = (file: string): void => {
      state.set(file, 'open');
      path.push(file);
      for (const target of graph.get(file)!) {
        if (state.get(target) === 'open') cycles.push([...path.slice(path.indexOf(target)), target].map((f) => relative(SRC, f)).join(' → '));
        else if (!state.has(target)) visit(target);
      }
      path.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file);
    expect(files.length).toBeGreaterThan(100);
    expect(cycles).toEqual([]);
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
