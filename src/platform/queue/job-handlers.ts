import { type JobContext, JOB_NAMES, type JobName } from './queue.types.js';

export interface DiscoveredHandler {
  job: string;
  /** `Class.method`, for the start-up error message. */
  location: string;
}

/**
 * The start-up check of the worker: every job name has exactly one handler and every handler
 * names a known job. Returns the problems found (empty when all is well).
 */
export function handlerProblems(handlers: readonly DiscoveredHandler[], jobNames: readonly string[] = JOB_NAMES): string[] {
  const problems: string[] = [];
  for (const job of jobNames) {
    const found = handlers.filter((handler) => handler.job === job);
    if (found.length === 0) problems.push(`job ${job} has no @OnJob handler`);
    if (found.length > 1) problems.push(`job ${job} has ${found.length} handlers: ${found.map((handler) => handler.location).join(', ')}`);
  }
  for (const handler of handlers) {
    if (!jobNames.includes(handler.job)) problems.push(`${handler.location} handles unknown job ${handler.job}`);
  }
  return problems;
}

export type JobHandlerFn = (data: unknown, context: JobContext) => Promise<unknown>;

export class JobHandlerError extends Error {}

/** Builds the job → handler map, or throws naming every problem. */
export function buildHandlerMap(handlers: readonly (DiscoveredHandler & { run: JobHandlerFn })[]): Map<JobName, JobHandlerFn> {
  const problems = handlerProblems(handlers);
  if (problems.length > 0) throw new JobHandlerError(`Invalid job handlers:\n  ${problems.join('\n  ')}`);
  return new Map(handlers.map((handler) => [handler.job as JobName, handler.run]));
}
