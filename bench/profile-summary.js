// Summarises a V8 .cpuprofile by where time goes: each npm package, the service's own code
// (dist/), Node's internals, the garbage collector. A sample in a builtin or in Node's internals
// counts for the innermost package or service frame that called it (JSON.stringify called by
// pino counts for pino), else for itself. Shares are of busy time (idle excluded).
// Used by `BENCH_PROFILE=1 npm run bench`; also `node bench/profile-summary.js <file> [top]`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

function category(url, functionName) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const packages = url.split('node_modules/');
  if (packages.length > 1) {
    const rest = packages.at(-1).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return 'node internals';
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return `service: ${url.slice(dist + 6).split('/').slice(0, 2).join('/')}`;
  return url;
}

/** `top`: the largest shares of busy time, by owner; `idle`: the share of all samples spent waiting for I/O. */
export function summarise(path, top = 15) {
  const profile = JSON.parse(readFileSync(path, 'utf8'));
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map(profile.nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node.id])));
  const owner = new Map();
  const ownerOf = (id) => {
    if (!owner.has(id)) {
      const { url, functionName } = byNode.get(id).callFrame;
      const own = category(url, functionName);
      const generic = own === '(native)' || own === 'node internals';
      const parent = parents.get(id);
      const inherited = generic && parent !== undefined ? ownerOf(parent) : undefined;
      owner.set(id, inherited && inherited !== '(native)' && inherited !== 'node internals' && !inherited.startsWith('(') ? inherited : own);
    }
    return owner.get(id);
  };
  const counts = new Map();
  for (const id of profile.samples) {
    const name = ownerOf(id);
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const idle = counts.get('(idle)') ?? 0;
  counts.delete('(idle)');
  const busy = profile.samples.length - idle;
  return {
    idle: idle / profile.samples.length,
    top: [...counts].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, samples]) => ({ name, share: samples / busy })),
  };
}

export function printShares(top) {
  for (const { name, share } of top) console.log(`${(share * 100).toFixed(1).padStart(5)} %  ${name}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) printShares(summarise(process.argv[2], Number(process.argv[3] ?? 15)).top);
