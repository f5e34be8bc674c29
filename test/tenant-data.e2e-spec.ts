import { DataSource, QueryRunnerAlreadyReleasedError } from 'typeorm';
import { Customer } from '../src/finance/customer.entity.js';
import { TenantData, type TenantScope } from '../src/platform/tenancy/tenant-data.js';
import { startApi, type TestApi } from './support/api.js';
import { createTenantSession } from './support/tenant-session.js';

/** The tenant-bound data layer: whatever a caller asks, a statement only ever touches its own company's rows. */
describe('TenantData', () => {
  let api: TestApi;
  let db: DataSource;
  let a: TenantScope;
  let b: TenantScope;
  let bCustomer: string;

  const customer = async (id: string) =>
    ((await db.query('SELECT tenant_id, name FROM customers WHERE id = $1', [id])) as { tenant_id: string; name: string }[])[0];

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    const data = api.app.get(TenantData);
    a = data.forTenant((await createTenantSession(api.app)).tenant.id);
    b = data.forTenant((await createTenantSession(api.app)).tenant.id);
    [bCustomer] = await b.repository(Customer).insert({ name: 'B customer', email: null });
  });
  afterAll(() => api.close());

  it('inserts rows of its own company, even when the values name another', async () => {
    const [id] = await a.repository(Customer).insert({ name: 'A customer', email: null, ...({ tenantId: b.tenantId } as object) });
    expect(await customer(id)).toEqual({ tenant_id: a.tenantId, name: 'A customer' });
  });

  it('inserts more rows than one statement can bind (PostgreSQL counts parameters in 16 bits), ids in order', async () => {
    const scope = api.app.get(TenantData).forTenant((await createTenantSession(api.app)).tenant.id);
    // 4 columns × 17,000 rows = 68,000 parameters in one statement: more than 65,535.
    const names = Array.from({ length: 17_000 }, (_, n) => `bulk ${n}`);
    const ids = await scope.repository(Customer).insert(names.map((name) => ({ name, email: `${name.replace(' ', '-')}@example.test` })));
    expect(ids).toHaveLength(17_000);
    const stored = await db.query('SELECT id, name FROM customers WHERE tenant_id = $1', [scope.tenantId]);
    const byId = new Map(stored.map((row: { id: string; name: string }) => [row.id, row.name]));
    expect(ids.map((id) => byId.get(id))).toEqual(names);
  });

  it("neither finds, counts, updates nor deletes another company's row by its id", async () => {
    const customers = a.repository(Customer);
    expect(await customers.findOne({ id: bCustomer })).toBeNull();
    expect(await customers.exists({ id: bCustomer })).toBe(false);
    expect(await customers.count({ id: bCustomer })).toBe(0);
    expect(await customers.find({ where: { id: bCustomer } })).toEqual([]);
    expect(await customers.select('customer').andWhere('customer.id = :id', { id: bCustomer }).getOne()).toBeNull();
    expect(await customers.update({ id: bCustomer }, { name: 'taken over' })).toBe(0);
    expect(await customer(bCustomer)).toEqual({ tenant_id: b.tenantId, name: 'B customer' });
    expect(await b.repository(Customer).findOne({ id: bCustomer })).toMatchObject({ id: bCustomer, tenantId: b.tenantId });
  });

  it('never moves a row to another company', async () => {
    const [id] = await a.repository(Customer).insert({ name: 'stays', email: null });
    expect(await a.repository(Customer).update({ id }, { name: 'renamed', ...({ tenantId: b.tenantId } as object) })).toBe(1);
    expect(await customer(id)).toEqual({ tenant_id: a.tenantId, name: 'renamed' });
  });

  it('refuses a select whose company condition would be replaced or widened', async () => {
    const query = a.repository(Customer).select('customer');
    expect(() => query.where('customer.id = :id', { id: bCustomer })).toThrow(/andWhere/);
    expect(() => query.orWhere('TRUE')).toThrow(/andWhere/);
    // A condition with OR stays within the company: `tenant = A AND x OR y` would have read every company's y.
    const widened = a.repository(Customer).select('customer').andWhere('customer.name = :none OR customer.id = :id', { none: 'no such name', id: bCustomer });
    expect(await widened.getOne()).toBeNull();
    expect(await a.repository(Customer).select('customer').andWhere(() => 'FALSE OR customer.id = :id', { id: bCustomer }).getOne()).toBeNull();
    // The company's id cannot be replaced by a parameter of the same name.
    const own = a.repository(Customer).select('customer');
    expect(() => own.andWhere('customer.id = :id', { id: bCustomer, scopeTenantId: b.tenantId })).toThrow(/company's id/);
    expect(() => own.setParameter('scopeTenantId', b.tenantId)).toThrow(/company's id/);
    expect(() => own.setParameters({ scopeTenantId: b.tenantId })).toThrow(/company's id/);
    expect(await own.andWhere('customer.id = :id', { id: bCustomer }).getOne()).toBeNull();
  });

  it("runs a prepared statement in a transaction on that transaction's connection: it sees the transaction's writes and is undone with it", async () => {
    const count = (scope: TenantScope) => scope.hotQuery<{ n: number }>('customers-count', 'SELECT count(*)::int AS n FROM customers WHERE tenant_id = $1');
    const [{ n: before }] = await count(a);
    const rolledBack = new Error('roll back');
    await expect(
      api.app.get(TenantData).transaction(a.tenantId, async (scope) => {
        await scope.repository(Customer).insert({ name: 'seen inside', email: null });
        expect(await count(scope)).toEqual([{ n: before + 1 }]);
        const [{ id }] = await scope.hotQuery<{ id: string }>('customers-insert', `INSERT INTO customers (tenant_id, name) VALUES ($1, $2) RETURNING id`, ['undone']);
        expect(await scope.repository(Customer).findOne({ id })).toMatchObject({ name: 'undone' });
        // On the pool, neither insert is visible yet.
        expect(await count(a)).toEqual([{ n: before }]);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    expect(await count(a)).toEqual([{ n: before }]);
  });

  it('refuses a prepared statement on the scope of a finished transaction, whose connection is back in the pool', async () => {
    const finished = await api.app.get(TenantData).transaction(a.tenantId, async (scope) => scope);
    await expect(finished.hotQuery('customers-count', 'SELECT count(*)::int AS n FROM customers WHERE tenant_id = $1')).rejects.toBeInstanceOf(
      QueryRunnerAlreadyReleasedError,
    );
  });

  it('refuses SQL that does not use the company id, and binds it as $1', async () => {
    await expect(a.query('SELECT count(*)::int AS n FROM customers')).rejects.toThrow(/\$1/);
    await expect(a.query('SELECT id FROM customers WHERE tenant_id = $10', [])).rejects.toThrow(/\$1/);
    const rows = await a.query<{ n: number }>('SELECT count(*)::int AS n FROM customers WHERE tenant_id = $1 AND id = $2', [bCustomer]);
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('answers the rows an UPDATE or DELETE returns, as a SELECT does, in a transaction or not', async () => {
    // Before: TypeORM's [rows, count] for an UPDATE, read as two rows of undefined.
    const renamed = await b.query<{ id: string }>(`UPDATE customers SET name = 'B renamed' WHERE tenant_id = $1 AND id = $2 RETURNING id`, [bCustomer]);
    expect(renamed).toEqual([{ id: bCustomer }]);
    expect(await a.query(`UPDATE customers SET name = 'x' WHERE tenant_id = $1 AND id = $2 RETURNING id`, [bCustomer])).toEqual([]);
    const [extra] = await b.repository(Customer).insert({ name: 'B extra', email: null });
    const inside = await api.app.get(TenantData).transaction(b.tenantId, (scope) => scope.query(`DELETE FROM customers WHERE tenant_id = $1 AND id = $2 RETURNING id`, [extra]));
    expect(inside).toEqual([{ id: extra }]);
  });

  it('cannot be had without a company', () => {
    const data = api.app.get(TenantData);
    expect(() => data.forTenant('')).toThrow(/company/);
    expect(() => data.forTenant(undefined as unknown as string)).toThrow(/company/);
    // The types refuse it too (checked by `npm run typecheck`).
    // @ts-expect-error the company is a required argument
    expect(() => data.forTenant()).toThrow(/company/);
    // @ts-expect-error conditions never name the company: the scope adds it
    const naming = () => a.repository(Customer).find({ where: { tenantId: b.tenantId } });
    expect(naming).toBeInstanceOf(Function);
  });

  it('finds the company owning a row, for admin commands that name only the row', async () => {
    const data = api.app.get(TenantData);
    expect((await data.forOwnerOf(Customer, bCustomer))?.tenantId).toBe(b.tenantId);
    expect(await data.forOwnerOf(Customer, '00000000-0000-4000-8000-000000000000')).toBeNull();
  });

  it('runs a transaction bound to one company, rolled back as a whole', async () => {
    const data = api.app.get(TenantData);
    let inserted = '';
    await expect(
      data.transaction(a.tenantId, async (scope) => {
        [inserted] = await scope.repository(Customer).insert({ name: 'rolled back', email: null });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await customer(inserted)).toBeUndefined();
  });
});
