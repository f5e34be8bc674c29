import type { Repository } from 'typeorm';
import { type ListResource, resourceErrorNames } from '../catalog/errors.js';
import { DomainException } from '../errors/domain.exception.js';
import type { Page, PageRequest } from '../pagination/page.js';
import type { Paginator } from '../pagination/paginator.service.js';
import type { TenantOwnedEntity } from './tenant-owned.entity.js';

/**
 * List and retrieve of one readable resource, always within one company: the tenant id is a
 * required argument of every method, so an unscoped read cannot be written. Subclasses name
 * the resource and map an entity to its API representation.
 */
export abstract class ReadResourceService<E extends TenantOwnedEntity, R> {
  protected abstract readonly resource: ListResource;

  protected constructor(
    protected readonly repository: Repository<E>,
    protected readonly paginator: Paginator,
  ) {}

  abstract toResource(entity: E): R;

  list(tenantId: string, page: PageRequest): Promise<Page<R>> {
    const query = this.repository.createQueryBuilder('item').where('item.tenant_id = :tenantId', { tenantId });
    return this.paginator.paginate(query, page, {
      list: this.resource,
      invalidCursor: resourceErrorNames(this.resource).invalidCursor,
      map: (entity) => this.toResource(entity),
    });
  }

  async get(tenantId: string, id: string): Promise<R> {
    return this.toResource(await this.findEntity(tenantId, id));
  }

  /** The entity of this company, or the resource's 404. */
  async findEntity(tenantId: string, id: string): Promise<E> {
    const entity = await this.repository.createQueryBuilder('item').where('item.tenant_id = :tenantId AND item.id = :id', { tenantId, id }).getOne();
    if (!entity) throw new DomainException(resourceErrorNames(this.resource).notFound, `No ${this.resource.replace(/_/g, ' ')} record with id ${id}.`);
    return entity;
  }
}
