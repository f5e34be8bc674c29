import { METHODS } from 'node:http';
import type { Application } from 'express';

interface RouteLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): { keys: string[] } | false;
}

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * The methods the express router serves for `path`, in a stable order, HEAD implied by GET.
 * Empty when no route matches the path at all: then a request is a 404, otherwise a 405.
 * Routes registered for every method (`all()`: Nest mounts its middleware that way) say
 * nothing about the path and are skipped. As OpenAPI matches paths, a concrete path is served
 * by its own routes only: `…/deliveries/replay_failed` is POST's, though `…/deliveries/{id}`'s
 * GET would match it too; so only the routes with the fewest parameters among those matching count.
 */
export function allowedMethods(app: Application, path: string): string[] {
  const stack = (app.router as unknown as { stack: RouteLayer[] }).stack;
  const methods = new Set<string>();
  let fewestParameters = Infinity;
  for (const layer of stack) {
    const parameters = layer.route ? parametersMatching(layer, path) : undefined;
    if (parameters === undefined || parameters > fewestParameters) continue;
    const served = Object.keys(layer.route!.methods).filter((method) => layer.route!.methods[method]);
    if (served.includes('_all') || METHODS.every((method) => served.includes(method.toLowerCase()))) continue;
    if (parameters < fewestParameters) methods.clear();
    fewestParameters = parameters;
    for (const method of served) methods.add(method.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/**
 * How many path parameters the layer reads from `path`, or undefined when it does not match. A
 * path whose parameters cannot be percent-decoded matches nothing here; express answers it itself.
 */
function parametersMatching(layer: RouteLayer, path: string): number | undefined {
  try {
    const match = layer.match(path);
    return match ? match.keys.length : undefined;
  } catch {
    return undefined;
  }
}

function rank(method: string): number {
  const index = ORDER.indexOf(method);
  return index === -1 ? ORDER.length : index;
}
