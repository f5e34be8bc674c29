import { hotQuery, hotQueryIn } from '../database/hot-query.js';
import { commitWithHook, refuseChangeOutsideTransaction, takeBegunTransaction } from '../database/commit-hook.js';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type {
  DataSource,
  EntityManager,
  EntityTarget,
  FindOptionsOrder,
  FindOptionsSelect,
  FindOptionsWhere,
  ObjectLiteral,
  QueryDeepPartialEntity,
  Repository,
  SelectQueryBuilder,
} from 'typeorm';
import { Tenant } from './tenant.entity.js';

/** A row of a tenant-owned table: it belongs to exactly one company. */
export type TenantOwned = ObjectLiteral & { tenantId: string };

/** The name of a scoped select's company id among its parameters: no other condition may set it. */
const TENANT_PARAMETER = 'scopeTenantId';

/** Rows per INSERT statement: below the 65,535 bind parameters for any table of under 65 columns. */
const INSERT_CHUNK = 1000;

/** Conditions of a scoped query. The company is never among them: the repository adds it. */
export type ScopedWhere<E> = Omit<FindOptionsWhere<E>, 'tenantId'>;

/** Values to write. The company is never among them: inserts set it, updates cannot move a row to another one. */
export type ScopedValues<E> = Omit<QueryDeepPartialEntity<E>, 'tenantId'>;

export interface ScopedFind<E> {
  where?: ScopedWhere<E>;
  select?: FindOptionsSelect<E>;
  order?: FindOptionsOrder<E>;
}

/**
 * The one way feature code reads and writes tenant-owned tables (as Novu's base repository
 * enforces `_environmentId` in every query). A scope is bound to one company and, for writes in
 * a transaction, to that transaction's EntityManager; there is no method that takes a query
 * without the company, so an unscoped query cannot be written.
 */
@Injectable()
export class TenantData {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** `manager`: the transaction to work in (e.g. seed:demo's); else each call is its own statement. */
  forTenant(tenantId: string, manager: EntityManager = this.dataSource.manager): TenantScope {
    return new TenantScope(tenantId, manager);
  }

  /**
   * For admin commands that name a row but not its company (support's `webhook:grant-pii
   * --endpoint ID`): the scope of the company owning row `id`, or null when there is none.
   */
  async forOwnerOf(entity: EntityTarget<TenantOwned>, id: string): Promise<TenantScope | null> {
    const row = await this.dataSource.getRepository(entity).findOne({ select: { tenantId: true }, where: { id } });
    return row ? this.forTenant(row.tenantId) : null;
  }

  /**
   * One transaction, every statement of `work` bound to the company. The running request's
   * commit hook, if any, commits it (an idempotent request's claim: IdempotencyStore.commitMarked).
   * As TypeORM's DataSource.transaction, but with the commit in the hook's hands.
   */
  async transaction<T>(tenantId: string, work: (scope: TenantScope) => Promise<T>): Promise<T> {
    requireTenant(tenantId);
    // An idempotent request's claim was sent with the BEGIN of this transaction (IdempotencyStore.claim).
    const runner = takeBegunTransaction() ?? this.dataSource.createQueryRunner();
    try {
      if (!runner.isTransactionActive) await runner.startTransaction();
      const result = await work(new TenantScope(tenantId, runner.manager));
      await commitWithHook(runner, result);
      return result;
    } catch (error) {
      // The error is the request's answer, whatever the rollback does.
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }
}

/** One company's data, optionally inside one transaction. */
export class TenantScope {
  constructor(
    readonly tenantId: string,
    private readonly manager: EntityManager,
  ) {
    requireTenant(tenantId);
  }

  repository<E extends TenantOwned>(entity: EntityTarget<E>): TenantRepository<E> {
    return new TenantRepository(this.tenantId, this.manager.getRepository(entity));
  }

  /**
   * SQL the repository methods cannot express (aggregates, upserts, multi-row inserts). The
   * company's id is always `$1`, and the text must use it; `parameters` are `$2`, `$3`, ….
   */
  async query<R = Record<string, unknown>>(sql: string, parameters: readonly unknown[] = []): Promise<R[]> {
    requireTenantParameter(sql);
    if (!this.manager.queryRunner) refuseChangeOutsideTransaction(sql);
    // The rows, whatever the statement: TypeORM's plain query answers an UPDATE or DELETE as
    // [rows, count], which read as rows gave two `undefined` ids (a retry offered "" to the gate).
    const runner = this.manager.queryRunner ?? this.manager.connection.createQueryRunner();
    try {
      return (await runner.query(sql, [this.tenantId, ...parameters], true)).records as R[];
    } finally {
      if (runner !== this.manager.queryRunner) await runner.release();
    }
  }

  /**
   * A statement on the path of every request, as a named prepared statement (see hotQuery): on
   * the pool, or in a transaction on that transaction's connection, so that it sees the
   * transaction's own writes and commits with them. Like `query`, the company's id is `$1`.
   */
  async hotQuery<R>(name: string, sql: string, parameters: readonly unknown[] = []): Promise<R[]> {
    requireTenantParameter(sql);
    if (!this.manager.queryRunner) refuseChangeOutsideTransaction(sql);
    const values = [this.tenantId, ...parameters];
    return this.manager.queryRunner ? hotQueryIn<R>(this.manager, name, sql, values) : hotQuery<R>(this.manager.connection, name, sql, values);
  }

  /** The company's own row (name, slug, enabled currencies). */
  tenant(): Promise<Tenant> {
    return this.manager.getRepository(Tenant).findOneByOrFail({ id: this.tenantId });
  }

  async tenantExists(): Promise<boolean> {
    return this.manager.getRepository(Tenant).existsBy({ id: this.tenantId });
  }

  async tenantActive(): Promise<boolean> {
    return this.manager.getRepository(Tenant).existsBy({ id: this.tenantId, active: true });
  }

  /** Column name of an entity property, for `query` texts built from entity metadata. */
  columnName(entity: EntityTarget<TenantOwned>, property: string): string | undefined {
    return this.manager.connection.getMetadata(entity).findColumnWithPropertyName(property)?.databaseName;
  }

  tableName(entity: EntityTarget<TenantOwned>): string {
    return this.manager.connection.getMetadata(entity).tableName;
  }
}

/** A TypeORM repository whose every statement carries `tenant_id` = the scope's company. */
export class TenantRepository<E extends TenantOwned> {
  constructor(
    private readonly tenantId: string,
    private readonly repository: Repository<E>,
  ) {}

  find(options: ScopedFind<E> = {}): Promise<E[]> {
    return this.repository.find({ ...options, where: this.where(options.where) });
  }

  findOne(where: ScopedWhere<E>): Promise<E | null> {
    return this.repository.findOneBy(this.where(where));
  }

  findOneOrFail(where: ScopedWhere<E>): Promise<E> {
    return this.repository.findOneByOrFail(this.where(where));
  }

  exists(where: ScopedWhere<E>): Promise<boolean> {
    return this.repository.existsBy(this.where(where));
  }

  count(where: ScopedWhere<E>): Promise<number> {
    return this.repository.countBy(this.where(where));
  }

  /**
   * Inserts rows of this company; answers their ids in order. Many rows go in statements of at
   * most INSERT_CHUNK: one statement binds at most 65,535 parameters (the protocol counts them
   * in 16 bits), which 10,000 rows of a few columns exceed.
   */
  async insert(values: ScopedValues<E> | readonly ScopedValues<E>[]): Promise<string[]> {
    this.changing();
    const rows = ((Array.isArray(values) ? values : [values]) as ScopedValues<E>[]).map((row) => this.owned(row));
    const ids: string[] = [];
    for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
      const { identifiers } = await this.repository.insert(rows.slice(start, start + INSERT_CHUNK));
      ids.push(...identifiers.map((identifier) => identifier.id as string));
    }
    return ids;
  }

  /** Inserts one row of this company and answers it as stored (generated columns filled in). */
  save(values: ScopedValues<E>): Promise<E> {
    this.changing();
    return this.repository.save(this.owned(values) as E);
  }

  /**
   * Updates this company's rows matching `where`; answers how many changed. A row never moves to
   * another company. `updated_at` is the time of the update, not TypeORM's CURRENT_TIMESTAMP (the
   * transaction's start): two updates of one row, the second waiting for the first's lock, would
   * otherwise be stamped in the opposite order to the one they were applied in.
   */
  async update(where: ScopedWhere<E>, values: ScopedValues<E>): Promise<number> {
    this.changing();
    const updatedAt = this.repository.metadata.updateDateColumn?.propertyName;
    const stamped = updatedAt === undefined || updatedAt in values ? values : { ...values, [updatedAt]: () => 'clock_timestamp()' };
    return (await this.repository.update(this.where(where), this.owned(stamped as ScopedValues<E>))).affected ?? 0;
  }

  /**
   * A select of this company's rows for what the methods above cannot say (row locks, keyset
   * pages, text search). Its WHERE already holds the company; conditions are added with
   * `andWhere`, each in parentheses (TypeORM joins them as written: `a OR b` would widen the
   * company's condition to every company's `b`), and `where`/`orWhere`, which would drop or
   * widen it, throw, as does a parameter that would replace the company's id.
   */
  select(alias: string): SelectQueryBuilder<E> {
    const query = this.repository.createQueryBuilder(alias).where(`${alias}.tenant_id = :${TENANT_PARAMETER}`, { [TENANT_PARAMETER]: this.tenantId });
    const refuse = (): never => {
      throw new Error('A tenant-scoped query takes further conditions with andWhere only');
    };
    const keep = (parameters?: ObjectLiteral) => {
      if (parameters && Object.hasOwn(parameters, TENANT_PARAMETER)) throw new Error(`A tenant-scoped query's parameter ${TENANT_PARAMETER} is the company's id`);
    };
    const [andWhere, setParameter, setParameters] = [query.andWhere, query.setParameter, query.setParameters].map((method) => method.bind(query)) as [
      typeof query.andWhere,
      typeof query.setParameter,
      typeof query.setParameters,
    ];
    return Object.assign(query, {
      where: refuse,
      orWhere: refuse,
      andWhere: (condition: Parameters<typeof andWhere>[0], parameters?: ObjectLiteral) => {
        keep(parameters);
        return andWhere(typeof condition === 'string' ? `(${condition})` : typeof condition === 'function' ? `(${condition(query)})` : condition, parameters);
      },
      setParameter: (key: string, value: unknown) => {
        keep({ [key]: value });
        return setParameter(key, value);
      },
      setParameters: (parameters: ObjectLiteral) => {
        keep(parameters);
        return setParameters(parameters);
      },
    });
  }

  private changing(): void {
    if (!this.repository.manager.queryRunner) refuseChangeOutsideTransaction();
  }

  private where(where?: ScopedWhere<E>): FindOptionsWhere<E> {
    return { ...where, tenantId: this.tenantId } as FindOptionsWhere<E>;
  }

  private owned(values: ScopedValues<E>): QueryDeepPartialEntity<E> {
    return { ...values, tenantId: this.tenantId } as QueryDeepPartialEntity<E>;
  }
}

function requireTenant(tenantId: string): void {
  if (typeof tenantId !== 'string' || tenantId.length === 0) throw new Error('A tenant scope needs the company id');
}

function requireTenantParameter(sql: string): void {
  if (!/\$1(?!\d)/.test(sql)) throw new Error('A tenant-scoped statement must use the company id ($1)');
}
