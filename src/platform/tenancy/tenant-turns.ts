import { DomainException } from '../errors/domain.exception.js';
import { TRANSIENT_RETRY_AFTER_S } from '../errors/problem.js';

/** Ends a turn; calling it again does nothing. */
export type EndTurn = () => void;

interface Waiter {
  start: (end: EndTurn) => void;
  refuse: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

/** Requests of one company that may wait for a turn in one process; more are refused at once. */
const MAX_WAITING = 1000;

/**
 * A company's share of this process's database pool (10 connections): at most `concurrency`
 * of its requests (REST) or tool calls (agent-tool server) hold a turn at once, the others wait
 * for one in arrival order holding no connection. One company's burst, or its requests queued on
 * a lock of its own records, thus leaves the other companies the rest of the pool. A wait longer
 * than `maxWaitMs` (the time a statement or a pooled connection is waited for) is refused 503
 * `service_unavailable` with Retry-After, as a busy pool is; so is one past MAX_WAITING waiting
 * requests. Per process, as each process has its own pool.
 */
export class TenantTurns {
  private readonly tenants = new Map<string, { active: number; waiting: Waiter[] }>();

  constructor(
    private readonly concurrency: number,
    private readonly maxWaitMs: number,
  ) {}

  /** A turn of the company's, when one is free. */
  acquire(tenantId: string): Promise<EndTurn> {
    const free = this.take(tenantId);
    return free ? Promise.resolve(free) : this.wait(tenantId);
  }

  /** `work` in a turn of the company's; `waited`: none was free at once. */
  async run<T>(tenantId: string, work: (waited: boolean) => Promise<T>): Promise<T> {
    const free = this.take(tenantId);
    const end = free ?? (await this.wait(tenantId));
    try {
      return await work(free === undefined);
    } finally {
      end();
    }
  }

  /** A turn of the company's once one is free; none is now. */
  private wait(tenantId: string): Promise<EndTurn> {
    const tenant = this.tenants.get(tenantId)!;
    if (tenant.waiting.length >= MAX_WAITING) return Promise.reject(this.busy(`${MAX_WAITING} of this company's requests are already waiting`));
    const queue = tenant.waiting;
    return new Promise<EndTurn>((start, refuse) => {
      const waiter: Waiter = { start, refuse };
      waiter.timer = setTimeout(() => {
        queue.splice(queue.indexOf(waiter), 1);
        refuse(this.busy(`no turn came within ${this.maxWaitMs} ms`));
      }, this.maxWaitMs);
      queue.push(waiter);
    });
  }

  /** A turn of the company's if one is free now. */
  private take(tenantId: string): EndTurn | undefined {
    let tenant = this.tenants.get(tenantId);
    if (!tenant) {
      tenant = { active: 0, waiting: [] };
      this.tenants.set(tenantId, tenant);
    }
    if (tenant.active >= this.concurrency) return undefined;
    tenant.active += 1;
    return this.ender(tenantId);
  }

  private ender(tenantId: string): EndTurn {
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const tenant = this.tenants.get(tenantId)!;
      const next = tenant.waiting.shift();
      if (next) {
        clearTimeout(next.timer);
        next.start(this.ender(tenantId));
        return;
      }
      tenant.active -= 1;
      if (tenant.active === 0) this.tenants.delete(tenantId);
    };
  }

  private busy(reason: string): DomainException {
    return new DomainException(
      'ServiceUnavailable',
      `This company's requests take their whole share of this server now (${reason}); retry in ${TRANSIENT_RETRY_AFTER_S} s.`,
      {},
      { 'Retry-After': String(TRANSIENT_RETRY_AFTER_S) },
    );
  }
}
