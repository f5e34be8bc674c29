import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { isScope } from '../catalog/scopes.js';
import { Tenant } from './tenant.entity.js';
import { User } from './user.entity.js';

export interface CreateTenantInput {
  name: string;
  slug?: string;
  currencies?: string[];
}

const CURRENCY = /^[A-Z]{3}$/;

/** Companies and their people: what the spec places in "the applications". */
@Injectable()
export class TenantsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** `manager`: the transaction to create the company in (seed:demo), else its own statement. */
  async create(input: CreateTenantInput, manager: EntityManager = this.dataSource.manager): Promise<Tenant> {
    const currencies = input.currencies ?? ['EUR'];
    const invalid = currencies.filter((code) => !CURRENCY.test(code));
    if (currencies.length === 0 || invalid.length > 0) throw new Error(`Invalid currencies: ${invalid.join(',') || '(none)'}`);
    const slug = input.slug ?? slugify(input.name);
    return manager.getRepository(Tenant).save({ name: input.name, slug, currencies: [...new Set(currencies)], active: true });
  }

  async deactivate(id: string): Promise<Tenant> {
    const repository = this.dataSource.getRepository(Tenant);
    const result = await repository.update({ id }, { active: false });
    if (!result.affected) throw new Error(`Tenant ${id} not found`);
    return repository.findOneByOrFail({ id });
  }

  async findById(id: string): Promise<Tenant | null> {
    return this.dataSource.getRepository(Tenant).findOneBy({ id });
  }

  async createUser(tenantId: string, email: string, permissions: string[], manager: EntityManager = this.dataSource.manager): Promise<User> {
    return manager.getRepository(User).save({ tenantId, email, permissions: validPermissions(permissions) });
  }

  async setPermissions(userId: string, permissions: string[]): Promise<User> {
    const repository = this.dataSource.getRepository(User);
    const result = await repository.update({ id: userId }, { permissions: validPermissions(permissions) });
    if (!result.affected) throw new Error(`User ${userId} not found`);
    return repository.findOneByOrFail({ id: userId });
  }

  async findUser(id: string): Promise<User | null> {
    return this.dataSource.getRepository(User).findOneBy({ id });
  }
}

/** A permission is a scope name without `int:` (operations.md). */
function validPermissions(permissions: string[]): string[] {
  const unknown = permissions.filter((permission) => !isScope(`int:${permission}`) || permission === '*');
  if (unknown.length > 0) throw new Error(`Unknown permissions: ${unknown.join(',')}`);
  return [...new Set(permissions)];
}

function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `${base || 'company'}-${Math.random().toString(36).slice(2, 8)}`;
}
