import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource, type ObjectLiteral, type SelectQueryBuilder } from 'typeorm';
import type { ErrorRef } from '../catalog/errors.js';
import { AppConfig } from '../config/app-config.js';
import { DomainException } from '../errors/domain.exception.js';
import { CursorCodec, type CursorPosition } from './cursor-codec.js';
import type { Page, PageRequest } from './page.js';

export interface PaginateOptions<T, R> {
  /** Names the list inside the cursor, so one list's cursor is refused by another. */
  list: string;
  /** The 422 answered for an unreadable cursor. */
  invalidCursor: ErrorRef;
  /** Maps a row to its API representation. */
  map: (row: T) => R;
  /** The timestamp column the list is ordered by, newest first: creation (default) or last change. */
  orderBy?: 'created_at' | 'updated_at';
}

/** A row of a plain-SQL page: its representation and its place in the keyset order. */
export interface KeysetRow<R> {
  item: R;
  /** The ordering timestamp as `to_char(… AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`, and the id. */
  position: CursorPosition;
}

/**
 * What a plain-SQL page fetch returns: up to the rows asked for, and `cut` when it returned
 * fewer although more follow (a page cut short by a budget of its own, such as the invoices'
 * lines): the page then ends there and tells that more exist.
 */
export interface KeysetRows<R> {
  rows: KeysetRow<R>[];
  cut: boolean;
}

/**
 * Keyset pagination, newest first: `ORDER BY created_at DESC, id DESC`, the cursor holding the
 * last row's created_at to the microsecond and its id. A position, not an offset, so rows
 * inserted meanwhile never shift or repeat a page. Query builders must select from one table
 * (no one-to-many joins) with `created_at` and `id` columns, indexed on
 * `(tenant_id, created_at DESC, id DESC)`.
 */
@Injectable()
export class Paginator implements OnModuleInit {
  private codec: CursorCodec;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    this.codec = new CursorCodec(this.config.CURSOR_SECRET ?? (await this.sharedSecret()));
  }

  async paginate<T extends ObjectLiteral & { id: string }, R>(
    query: SelectQueryBuilder<T>,
    page: PageRequest,
    options: PaginateOptions<T, R>,
  ): Promise<Page<R>> {
    const alias = query.alias;
    const column = `${alias}.${options.orderBy ?? 'created_at'}`;
    query
      .addSelect(`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`, 'page_cursor_ts')
      .orderBy(column, 'DESC')
      .addOrderBy(`${alias}.id`, 'DESC')
      .limit(page.limit + 1);
    const context = holderContext(options.list, page);
    const after = this.after(context, page, options.invalidCursor);
    if (after) {
      query.andWhere(`(${column}, ${alias}.id) < (CAST(:pageCursorTs AS timestamp) AT TIME ZONE 'UTC', CAST(:pageCursorId AS uuid))`, {
        pageCursorTs: after.createdAt,
        pageCursorId: after.id,
      });
    }
    const { entities, raw } = await query.getRawAndEntities();
    const position = (last: T): CursorPosition => {
      const lastRaw = (raw as Record<string, string>[]).find((row) => row[`${alias}_id`] === last.id)!;
      return { createdAt: lastRaw.page_cursor_ts, id: last.id };
    };
    return this.finish(context, page, entities, position, options.map);
  }

  /**
   * The same page, cursors and errors for a list read in plain SQL instead of a query builder:
   * `fetch` answers up to `take` rows after `after` (from the start when undefined) in the
   * order above, each with its position, so a cursor issued by either path is valid in the other.
   */
  async keysetPage<R>(
    page: PageRequest,
    options: Pick<PaginateOptions<never, R>, 'list' | 'invalidCursor'>,
    fetch: (after: CursorPosition | undefined, take: number) => Promise<KeysetRows<R>>,
  ): Promise<Page<R>> {
    const context = holderContext(options.list, page);
    const { rows, cut } = await fetch(this.after(context, page, options.invalidCursor), page.limit + 1);
    return this.finish(context, page, rows, (last) => last.position, (row) => row.item, cut);
  }

  private after(context: string, page: PageRequest, invalidCursor: ErrorRef): CursorPosition | undefined {
    if (page.cursor === undefined) return undefined;
    const position = this.codec.decode(context, page.cursor);
    if (!position) throw new DomainException(invalidCursor, 'The cursor is not one this list issued.', { field: 'cursor' });
    return position;
  }

  /** `rows`: up to one more than the limit, the extra one only telling that more exist; or fewer and `cut`. */
  private finish<T, R>(context: string, page: PageRequest, rows: T[], position: (last: T) => CursorPosition, map: (row: T) => R, cut = false): Page<R> {
    const hasMore = rows.length > page.limit || cut;
    const shown = rows.slice(0, page.limit);
    const last = shown.at(-1);
    const nextCursor = hasMore && last ? this.codec.encode(context, position(last)) : null;
    return { data: shown.map(map), next_cursor: nextCursor, has_more: hasMore };
  }

  /** One random signing key per database, created by whichever process asks first. */
  private async sharedSecret(): Promise<string> {
    await this.dataSource.query(
      `INSERT INTO platform_settings (name, value) VALUES ('cursor_secret', $1) ON CONFLICT (name) DO NOTHING`,
      [randomBytes(32).toString('base64url')],
    );
    const [{ value }] = await this.dataSource.query(`SELECT value FROM platform_settings WHERE name = 'cursor_secret'`);
    return value as string;
  }
}

/** The cursor is signed for its list and its holder: another company's or key's is refused. */
function holderContext(list: string, page: PageRequest): string {
  return `${list}\n${page.holder}`;
}
