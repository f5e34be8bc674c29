import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import currencyCodes from 'currency-codes';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { afterEveryProcessDropped, tenantChange } from '../auth-changes/auth-changes.js';
import { isScope } from '../catalog/scopes.js';
import { AppConfig } from '../config/app-config.js';
import { DomainException } from '../errors/domain.exception.js';
import { checkedName } from '../validation/names.js';
import { isUuid } from '../validation/uuid.pipe.js';
import { TenantData } from './tenant-data.js';
import { Tenant } from './tenant.entity.js';
import { User } from './user.entity.js';

export interface CreateTenantInput {
  name: string;
  slug?: string;
  currencies?: string[];
}

/** ISO 4217's list of codes in use (EUR, USD, VED, …; not XYZ, nor withdrawn ones such as HRK). */
const CURRENCIES: ReadonlySet<string> = new Set(currencyCodes.codes());
const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** What is wrong with a company's currencies (ISO 4217 codes in use, upper case, at least one), or undefined. */
export function invalidCurrencies(codes: readonly string[]): string | undefined {
  const invalid = codes.filter((code) => !CURRENCIES.has(code));
  return codes.length === 0 || invalid.length > 0 ? invalid.join(',') || '(none)' : undefined;
}

/** Companies and their people: what the spec places in "the applications". */
@Injectable()
export class TenantsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(TenantData) private readonly data: TenantData,
  ) {}

  /** `manager`: the transaction to create the company in (seed:demo), else its own statement. */
  async create(input: CreateTenantInput, manager: EntityManager = this.dataSource.manager): Promise<Tenant> {
    const currencies = input.currencies ?? ['EUR'];
    const invalid = invalidCurrencies(currencies);
    if (invalid !== undefined) throw new DomainException('InvalidInput', `Invalid currencies (ISO 4217 codes in use, upper case): ${invalid}`, { field: 'currencies' });
    if (input.slug !== undefined && !SLUG.test(input.slug)) {
      throw new DomainException('InvalidInput', 'slug must be 1-63 lower-case letters, digits or hyphens, starting with a letter or digit', { field: 'slug' });
    }
    // X-OH-Tenant names a company by its slug or its id: a slug of an id's form could name two.
    if (input.slug !== undefined && isUuid(input.slug)) {
      throw new DomainException('InvalidInput', 'slug must not have the form of a company id (X-OH-Tenant takes either)', { field: 'slug' });
    }
    const name = checkedName(input.name);
    const base = input.slug ?? slugify(name);
    // A chosen slug must be free; a derived one gets a short random suffix when taken. A taken
    // slug inserts nothing (ON CONFLICT DO NOTHING) instead of failing, which would abort the
    // caller's transaction (seed:demo creates the company inside one).
    for (let attempt = 0; attempt <= 5; attempt += 1) {
      const slug = attempt === 0 ? base : `${base.slice(0, 56)}-${randomBytes(3).toString('hex')}`;
      const inserted = await manager
        .createQueryBuilder()
        .insert()
        .into(Tenant)
        .values({ name, slug, currencies: [...new Set(currencies)], active: true })
        .orIgnore()
        .returning('id')
        .execute();
      const id = (inserted.raw as { id: string }[])[0]?.id;
      if (id) return manager.getRepository(Tenant).findOneByOrFail({ id });
      if (input.slug !== undefined) throw new DomainException('SlugTaken', `slug ${input.slug} is taken`, { field: 'slug' });
    }
    throw new DomainException('SlugTaken', `no free slug derived from ${base}`, { field: 'slug' });
  }

  /** Returns once every API process has confirmed that it dropped the company's keys from its cache. */
  async deactivate(id: string): Promise<Tenant> {
    const repository = this.dataSource.getRepository(Tenant);
    return afterEveryProcessDropped(
      this.config.DATABASE_URL,
      async () => {
        const result = await repository.update({ id }, { active: false });
        if (!result.affected) throw new DomainException('TenantNotFound', `Tenant ${id} not found`);
        return repository.findOneByOrFail({ id });
      },
      () => tenantChange(id),
    );
  }

  /** Every company's id, for work done company by company (secrets:reseal). */
  async ids(): Promise<string[]> {
    return (await this.dataSource.getRepository(Tenant).find({ select: { id: true }, order: { id: 'ASC' } })).map((tenant) => tenant.id);
  }

  async findById(id: string): Promise<Tenant | null> {
    return this.dataSource.getRepository(Tenant).findOneBy({ id });
  }

  /** A person of a company; e-mail addresses are unique per company, whatever their case. */
  async createUser(tenantId: string, email: string, permissions: string[], manager: EntityManager = this.dataSource.manager): Promise<User> {
    const valid = validPermissions(permissions);
    if (!(await this.data.forTenant(tenantId, manager).tenantExists())) throw new DomainException('TenantNotFound', `Tenant ${tenantId} not found`);
    // A taken address inserts nothing instead of failing, which would abort the caller's transaction (seed:demo).
    const inserted = await manager.createQueryBuilder().insert().into(User).values({ tenantId, email, permissions: valid }).orIgnore().returning('id').execute();
    const id = (inserted.raw as { id: string }[])[0]?.id;
    if (id === undefined) throw new DomainException('UserEmailTaken', `Tenant ${tenantId} already has a person with the e-mail address ${email}`, { field: 'email' });
    return manager.getRepository(User).findOneByOrFail({ id });
  }

  async setPermissions(userId: string, permissions: string[]): Promise<User> {
    const valid = validPermissions(permissions);
    const users = (await this.data.forOwnerOf(User, userId))?.repository(User);
    if (!users || !(await users.update({ id: userId }, { permissions: valid }))) throw new DomainException('UserNotFound', `User ${userId} not found`);
    return users.findOneOrFail({ id: userId });
  }
}

/** A permission is a scope name without `int:` (operations.md). */
function validPermissions(permissions: string[]): string[] {
  const unknown = permissions.filter((permission) => !isScope(`int:${permission}`) || permission === '*');
  if (unknown.length > 0) throw new DomainException('InvalidInput', `Unknown permissions: ${unknown.join(',')}`, { field: 'permissions' });
  return [...new Set(permissions)];
}

function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 56)
    .replace(/-+$/, '');
  if (isUuid(slug)) return `company-${slug}`;
  return slug || 'company';
}
