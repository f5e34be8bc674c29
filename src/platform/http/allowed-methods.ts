import { METHODS } from 'node:http';
import type { Application } from 'express';

interface RouteLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): unknown;
}

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * The methods the express router serves for `path`, in a stable order, HEAD implied by GET.
 * Empty when no route matches the path at all: then a request is a 404, otherwise a 405.
 * Routes registered for every method (`all()`: Nest mounts its middleware that way) say
 * nothing about the path and are skipped.
 */
export function allowedMethods(app: Application, path: string): string[] {
  const stack = (app.router as unknown as { stack: RouteLayer[] }).stack;
  const methods = new Set<string>();
  for (const layer of stack) {
    if (!layer.route || !matches(layer, path)) continue;
    const served = Object.keys(layer.route.methods).filter((method) => layer.route!.methods[method]);
    if (served.includes('_all') || METHODS.every((method) => served.includes(method.toLowerCase()))) continue;
    for (const method of served) methods.add(method.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** A path whose parameters cannot be percent-decoded matches nothing here; express answers it itself. */
function matches(layer: RouteLayer, path: string): boolean {
  try {
    return Boolean(layer.match(path));
  } catch {
    return false;
  }
}

function rank(method: string): number {
  const index = ORDER.indexOf(method);
  return index === -1 ? ORDER.length : index;
}
