import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * What a client generator makes of the document: openapi-typescript turns it into types, and a
 * small program written against them compiles under `tsc --strict`. The program uses what an
 * integrator would: an operation by its operationId, a page, a create body, problems with their
 * extra members, and a webhook receiver's handler of one event type.
 */
const PROGRAM = `
import type { components, operations, paths, webhooks } from './schema.js';

type Invoice = components['schemas']['InvoiceDto'];
type Problem = components['schemas']['ProblemDto'];
type InvoicePage = operations['invoices.list']['responses'][200]['content']['application/json'];
type CreateInvoice = NonNullable<paths['/v1/invoices']['post']['requestBody']>['content']['application/json'];
type ListQuery = NonNullable<operations['invoices.list']['parameters']['query']>;

export function totalOf(page: InvoicePage): number {
  return page.data.reduce((sum: number, invoice: Invoice) => sum + invoice.total_minor, 0);
}

export const query: ListQuery = { limit: 20, cursor: 'opaque' };

export const body: CreateInvoice = {
  customer_id: '1e38d67d-be8f-47d2-a4e0-ba9ff270b34e',
  currency: 'EUR',
  lines: [{ description: 'Consulting', qty: 2, unit_price_minor: 15000, tax_rate: 19 }],
};

export function describe(problem: Problem): string {
  const status: number = problem.status;
  return \`\${status} \${problem.detail_key} \${problem.supported_versions?.join(',') ?? ''}\`;
}

// Two 409 bodies as the API sends them: each member has its place in the problem's type.
export const notActive: Problem = {
  type: 'http://localhost:3000/errors/conflict',
  title: 'Endpoint not active',
  status: 409,
  detail: 'The endpoint is paused; resume it first.',
  detail_key: 'errors.integrations.webhooks.endpoint_not_active',
  code: 'endpoint_not_active',
  endpoint_status: 'paused',
};
export const notPending: Problem = { ...notActive, detail_key: 'errors.integrations.webhooks.delivery_not_pending', code: 'delivery_not_pending', delivery_status: 'delivered' };

// @ts-expect-error ProblemDto.status is an integer, not a string
export const wrong: Problem['status'] = '422';

// A receiver's handler: every envelope member is required and data is the type's resource.
type InvoiceCreated = webhooks['fin.invoice.created']['post']['requestBody']['content']['application/json'];
export function onInvoiceCreated(event: InvoiceCreated): { id: string; at: string; version: string; total: number } {
  const total: number = event.data.total_minor;
  return { id: event.id, at: event.created_at, version: event.api_version, total };
}
// @ts-expect-error data is not optional
export const withoutData: InvoiceCreated = { id: '0b8f0c8e-8d3c-4c55-9a57-1f2a5bfc0a11', type: 'fin.invoice.created', created_at: '2026-05-16T09:30:00Z', api_version: '2026-05-16' };
// @ts-expect-error the type member is the webhook's own type
export const otherType: InvoiceCreated['type'] = 'fin.invoice.paid';
`;

describe('typed client from the OpenAPI document (openapi-typescript + tsc --strict)', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'openapi-client-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('generates types that a strict program compiles against', async () => {
    await run(process.execPath, ['dist/openapi-export.js', join(dir, 'openapi.json')]);
    await run(process.execPath, ['node_modules/openapi-typescript/bin/cli.js', join(dir, 'openapi.json'), '--output', join(dir, 'schema.ts')]);
    await writeFile(join(dir, 'program.ts'), PROGRAM);
    const tsc = ['node_modules/typescript/bin/tsc', '--strict', '--noEmit', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--ignoreConfig', join(dir, 'program.ts')];
    // tsc reports type errors on stdout; they are the failure message.
    const outcome = await run(process.execPath, tsc).then(
      () => 'compiled',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(outcome).toBe('compiled');
  }, 120_000);
});
