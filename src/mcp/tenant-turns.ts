import pLimit, { type LimitFunction } from 'p-limit';

/**
 * At most `concurrency` tool calls of one company run at once in this process; the others wait
 * their turn holding no database connection. A burst of one company's expensive searches thus
 * takes a bounded share of the process's pool (10 connections), and another company's calls,
 * and every caller's token check, still find one. Per process, as each process has its own pool.
 */
export class TenantTurns {
  private readonly limits = new Map<string, LimitFunction>();

  constructor(private readonly concurrency: number) {}

  async run<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
    let limit = this.limits.get(tenantId);
    if (!limit) {
      limit = pLimit(this.concurrency);
      this.limits.set(tenantId, limit);
    }
    try {
      return await limit(work);
    } finally {
      // p-limit counts the call done just after its answer: look once that has happened.
      setImmediate(() => {
        if (limit.activeCount === 0 && limit.pendingCount === 0 && this.limits.get(tenantId) === limit) this.limits.delete(tenantId);
      });
    }
  }
}
