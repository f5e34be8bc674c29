import { Inject, Injectable } from '@nestjs/common';
import { AccessService } from '../../platform/access/access.service.js';
import type { AuthContext } from '../../platform/auth/auth-context.js';
import { EVENT_TYPES, EventCatalog, type EventType } from '../../platform/catalog/event-types.js';
import { DomainException } from '../../platform/errors/domain.exception.js';
import type { EventEnvelope } from '../../platform/events/event-envelope.js';
import { PUBLISHING_HORIZON_SQL, PUBLISHING_LOCK_NAMESPACE } from '../../platform/events/event-publisher.service.js';
import { budgetCut, budgetedPageSql } from '../../platform/pagination/budgeted-page.js';
import type { CursorPosition } from '../../platform/pagination/cursor-codec.js';
import type { Page, PageRequest } from '../../platform/pagination/page.js';
import { Paginator } from '../../platform/pagination/paginator.service.js';
import { TenantData } from '../../platform/tenancy/tenant-data.js';
import { CURRENT_API_VERSION } from '../../platform/versioning/api-version.js';
import { renderEvent } from '../delivery/webhook-envelope.js';
import type { EventDto } from './dto/event.dto.js';

export interface EventFilters {
  types?: readonly EventType[];
  since?: string;
}

interface FeedRow {
  envelope: EventEnvelope;
  /** created_at in UTC to the microsecond, the cursor's form. */
  position_ts: string;
  id: string;
  /** Rows the page had before FEED_PAGE_BYTES cut it. */
  fetched: number;
}

const POSITION = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS position_ts`;

/**
 * Bytes of envelope JSON a feed page carries at most (its first event whatever its size). An
 * event's data can be a whole invoice of 500 long lines, about half a MB, so a page of 100 could
 * be some 60 MB: a second of the process's event loop taken from every other company's
 * requests (at 5 MB, a review measured another company's p50 at 240 ms while such pages were
 * read). A page that reaches the budget ends early, with `has_more` and a cursor after its last
 * event.
 */
export const FEED_PAGE_BYTES = 1_000_000;

/** A page of events (`rows`, with `envelope_bytes`) within FEED_PAGE_BYTES; a cut event's envelope is never read. */
const withinBudget = (rows: string) => budgetedPageSql(rows, 'r.envelope_bytes', FEED_PAGE_BYTES, 'i.id, i.envelope, i.position_ts');

/**
 * The feed's two statements (exported for the test that reads their plans). `everyType`: one
 * range of `events_feed_idx`. `ofTypes`: one range of `events_feed_type_idx` per type, each
 * stopping at the page size, merged. Both then cut at FEED_PAGE_BYTES.
 */
export const FEED_SQL = {
  everyType: withinBudget(`SELECT id, envelope, envelope_bytes, created_at, ${POSITION} FROM events
     WHERE tenant_id = $1 AND NOT test AND created_at >= $2::timestamptz
       AND (created_at, id) < ($3::timestamp AT TIME ZONE 'UTC', $4::uuid)
     ORDER BY created_at DESC, id DESC LIMIT $5`),
  ofTypes: withinBudget(`SELECT e.id, e.envelope, e.envelope_bytes, e.created_at, e.position_ts FROM unnest($2::text[]) AS t(type)
      CROSS JOIN LATERAL (
        SELECT id, envelope, envelope_bytes, created_at, ${POSITION} FROM events
         WHERE tenant_id = $1 AND type = t.type AND NOT test AND created_at >= $3::timestamptz
           AND (created_at, id) < ($4::timestamp AT TIME ZONE 'UTC', $5::uuid)
         ORDER BY created_at DESC, id DESC LIMIT $6
      ) e
     ORDER BY e.created_at DESC, e.id DESC LIMIT $6`),
};

/** Where a feed without `since` ends: the bound the keyset condition always has. */
const OLDEST = '-infinity';

/** A first page starts just below the company's horizon (PUBLISHING_HORIZON_SQL): every id is above this one. */
const LOWEST_ID = '00000000-0000-0000-0000-000000000000';

/**
 * The events feed (GET /v1/events): what happened in the company, newest first, for a receiver
 * reconciling what it missed and for integrators polling for changes. A key sees exactly the
 * events it could subscribe to (AccessService.eventVisible); test events are never listed.
 *
 * A key that sees every type reads one index range of its company; any other key, and any
 * `types` filter, reads one range per type and merges them, so a narrow key never walks the
 * events it may not see.
 */
@Injectable()
export class EventsFeedService {
  constructor(
    @Inject(TenantData) private readonly data: TenantData,
    @Inject(Paginator) private readonly paginator: Paginator,
    @Inject(AccessService) private readonly access: AccessService,
  ) {}

  list(auth: AuthContext, filters: EventFilters, page: PageRequest): Promise<Page<EventDto>> {
    const visible = this.visibleTypes(auth);
    const types = filters.types ? filters.types.filter((type) => visible.has(type)) : [...visible];
    const everything = filters.types === undefined && visible.size === EVENT_TYPES.length;
    // The cursor is signed for these filters: reused with others it is refused.
    const list = `events\n${filters.types ? [...filters.types].sort().join(',') : '*'}\n${filters.since ?? ''}`;
    return this.paginator.keysetPage(page, { list, invalidCursor: 'EventsInvalidCursor' }, async (after, take) => {
      if (!everything && types.length === 0) return { rows: [], cut: false };
      const from = after ?? (await this.horizon(auth.tenantId));
      const rows = everything ? await this.everyType(auth.tenantId, filters.since, from, take) : await this.ofTypes(auth.tenantId, types, filters.since, from, take);
      return {
        rows: rows.map((row) => ({ item: renderEvent(row.envelope, CURRENT_API_VERSION) as unknown as EventDto, position: { createdAt: row.position_ts, id: row.id } })),
        cut: budgetCut(rows),
      };
    });
  }

  async get(auth: AuthContext, id: string): Promise<EventDto> {
    const [row] = await this.data
      .forTenant(auth.tenantId)
      .hotQuery<{ type: string; envelope: EventEnvelope }>('events-feed-get', 'SELECT type, envelope FROM events WHERE tenant_id = $1 AND id = $2 AND NOT test', [id]);
    if (!row || !this.visibleTypes(auth).has(row.type as EventType)) {
      throw new DomainException('EventNotFound', `No event ${id} that this key may see.`, { field: 'id' });
    }
    return renderEvent(row.envelope, CURRENT_API_VERSION) as unknown as EventDto;
  }

  private visibleTypes(auth: AuthContext): Set<EventType> {
    return new Set(EVENT_TYPES.filter((type) => this.access.eventVisible(auth.scopes, EventCatalog[type])));
  }

  private everyType(tenantId: string, since: string | undefined, from: CursorPosition, take: number): Promise<FeedRow[]> {
    return this.data.forTenant(tenantId).hotQuery<FeedRow>('events-feed', FEED_SQL.everyType, [since ?? OLDEST, from.createdAt, from.id, take]);
  }

  private ofTypes(tenantId: string, types: readonly string[], since: string | undefined, from: CursorPosition, take: number): Promise<FeedRow[]> {
    return this.data.forTenant(tenantId).hotQuery<FeedRow>('events-feed-types', FEED_SQL.ofTypes, [types, since ?? OLDEST, from.createdAt, from.id, take]);
  }

  /**
   * Where a first page starts: the company's publishing horizon, so that no event can later
   * commit above a page's last item, and a client that reads from the newest event down to one
   * it has seen misses none. Later pages continue below their cursor, which is below it.
   */
  private async horizon(tenantId: string): Promise<CursorPosition> {
    const [row] = await this.data.forTenant(tenantId).hotQuery<{ horizon: string }>('events-feed-horizon', PUBLISHING_HORIZON_SQL, [PUBLISHING_LOCK_NAMESPACE]);
    return { createdAt: row.horizon, id: LOWEST_ID };
  }
}
