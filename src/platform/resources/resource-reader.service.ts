import { Inject, Injectable } from '@nestjs/common';
import type { SelectQueryBuilder } from 'typeorm';
import { resourceErrors } from '../catalog/errors.js';
import { DomainException } from '../errors/domain.exception.js';
import type { Page, PageRequest } from '../pagination/page.js';
import { Paginator } from '../pagination/paginator.service.js';
import { TenantData, type TenantScope } from '../tenancy/tenant-data.js';
import type { ReadResource } from './read-resource.js';
import type { TenantOwnedEntity } from './tenant-owned.entity.js';

/**
 * Reads any declared resource, always within one company: the tenant id is a required argument
 * of every method and every statement goes through that company's TenantData scope. REST routes
 * and agent tools both read through here.
 */
@Injectable()
export class ResourceReader {
  constructor(
    @Inject(TenantData) private readonly data: TenantData,
    @Inject(Paginator) private readonly paginator: Paginator,
  ) {}

  /** Newest first by creation (the REST list and the `list_` tool); the resource's own `list` when it has one. */
  list<E extends TenantOwnedEntity, R extends object>(resource: ReadResource<E, R>, tenantId: string, page: PageRequest): Promise<Page<R>> {
    const scope = this.data.forTenant(tenantId);
    const fastList = resource.list;
    if (fastList) return this.paginator.keysetPage(page, this.pageOptions(resource, resource.name), (after, take) => fastList(scope, after, take));
    return this.page(resource, scope, this.scoped(resource, scope), page, resource.name, 'created_at');
  }

  /**
   * Records whose searchable columns contain every word of `text` (case-insensitive, in any of
   * the columns; the columns are searched as one text in declaration order, so "Anna Schmidt"
   * finds first and last name), newest first.
   */
  search<E extends TenantOwnedEntity, R extends object>(
    resource: ReadResource<E, R>,
    tenantId: string,
    text: string,
    page: PageRequest,
  ): Promise<Page<R>> {
    const haystack = `concat_ws(' ', ${resource.searchable.map((column) => `item.${column}`).join(', ')})`;
    const scope = this.data.forTenant(tenantId);
    const query = this.scoped(resource, scope);
    searchWords(text).forEach((word, index) => {
      query.andWhere(`${haystack} ILIKE :word${index}`, { [`word${index}`]: `%${word.replace(/[\\%_]/g, (special) => `\\${special}`)}%` });
    });
    return this.page(resource, scope, query, page, `${resource.name}.search`, 'created_at');
  }

  /** Records changed at or after `since` (PostgreSQL's text of a time, to the microsecond), the latest change first. */
  recent<E extends TenantOwnedEntity, R extends object>(resource: ReadResource<E, R>, tenantId: string, since: string, page: PageRequest): Promise<Page<R>> {
    const scope = this.data.forTenant(tenantId);
    const query = this.scoped(resource, scope).andWhere('item.updated_at >= :since', { since });
    return this.page(resource, scope, query, page, `${resource.name}.recent`, 'updated_at');
  }

  async get<E extends TenantOwnedEntity, R extends object>(resource: ReadResource<E, R>, tenantId: string, id: string): Promise<R> {
    const notFound = () => new DomainException(resourceErrors(resource.name).notFound, `No ${resource.singular} with id ${id}.`);
    const scope = this.data.forTenant(tenantId);
    if (resource.retrieve) {
      const found = await resource.retrieve(scope, id);
      if (!found) throw notFound();
      return found;
    }
    const row = await this.scoped(resource, scope).andWhere('item.id = :id', { id }).getOne();
    if (!row) throw notFound();
    const [representation] = await resource.represent([row], scope);
    return representation;
  }

  private scoped<E extends TenantOwnedEntity>(resource: ReadResource<E>, scope: TenantScope): SelectQueryBuilder<E> {
    return scope.repository(resource.entity).select('item');
  }

  private async page<E extends TenantOwnedEntity, R extends object>(
    resource: ReadResource<E, R>,
    scope: TenantScope,
    query: SelectQueryBuilder<E>,
    page: PageRequest,
    list: string,
    orderBy: 'created_at' | 'updated_at',
  ): Promise<Page<R>> {
    const rows = await this.paginator.paginate(query, page, { ...this.pageOptions(resource, list), map: (row: E) => row, orderBy });
    return { ...rows, data: await resource.represent(rows.data, scope) };
  }

  private pageOptions(resource: Pick<ReadResource, 'name'>, list: string) {
    return { list, invalidCursor: resourceErrors(resource.name).invalidCursor };
  }
}

/** Words a search text may hold: each is one more ILIKE over the searched columns. */
export const MAX_SEARCH_WORDS = 8;

/** The words of a search text; a text of spaces only searches for nothing in particular. */
function searchWords(text: string): string[] {
  return text.split(/\s+/).filter(Boolean).slice(0, MAX_SEARCH_WORDS);
}
