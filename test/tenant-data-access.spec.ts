import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * Tenant scoping is a rule, not a habit: code under src/ reaches the database only through
 * `TenantData` (src/platform/tenancy/tenant-data.ts), whose every statement carries the company.
 * This test type-checks src/ and fails on any other use of TypeORM's data access: a member of
 * DataSource, EntityManager, Repository or QueryRunner, a way out of a scoped query builder to
 * the connection or another table (a join included), or Nest's TypeORM injection decorators. The only exceptions
 * are listed below, each with the reason it cannot go through a tenant scope.
 */
const ALLOWED: Record<string, string> = {
  'src/platform/tenancy/tenant-data.ts': 'the tenant-bound layer itself',
  'src/platform/database/database.ts': 'creates the database and runs migrations under an advisory lock; no tenant data',
  'src/platform/database/migrations.ts': 'applies the SQL migration files',
  'src/platform/tenancy/tenants.service.ts': 'the companies themselves (the tenants table is the tenant, not tenant-owned) and creating their users',
  'src/platform/auth/api-keys.service.ts': 'authentication finds a key by its prefix before its company is known; keys are created for a company the admin names',
  'src/platform/auth/api-key-authenticator.service.ts': 'authentication finds a key by its prefix (a prepared statement) before its company is known',
  'src/platform/database/hot-query.ts': 'runs a named prepared statement on the pool for TenantScope.hotQuery and key authentication, or on the connection of a transaction TypeORM runs',
  'src/finance/invoice-rows.ts': "maps a plain invoice row with the numeric column transformer's from(); it runs no query",
  'src/mcp/mcp-tokens.service.ts': 'authentication finds a tool token by its prefix before its company is known; tokens are created for a company the admin names',
  'src/platform/pagination/paginator.service.ts': 'reads and creates the cursor-signing key in platform_settings, which belongs to no company',
  'src/platform/crypto/secrets-cipher.ts': 'reads and creates the development encryption key in platform_settings, which belongs to no company',
  'src/platform/idempotency/idempotency.store.ts':
    'claims are keyed by (company, API key, Idempotency-Key, method, path); marking one committed, completing or releasing it addresses its row by id and an unguessable lock token, and the expiry sweep spans all companies by design',
  'src/webhooks/delivery/delivery-store.ts':
    "the delivery worker's SQL serves one queue of every company: the relay takes every company's undispatched events (FOR UPDATE SKIP LOCKED), the sweep and the pending-age gauge read every company's deliveries, and a lease or an outcome addresses one delivery by its id and lease token; every join is on the row's own tenant_id",
  'src/webhooks/secrets/webhook-sealed-secrets.ts':
    "the check at start reads every company's newest signing secrets only to try SECRETS_KEY on them (nothing read leaves the process); the re-sealing goes company by company through TenantData",
  'src/cli/demo.commands.ts': 'creates a company, its user, keys and token in the transaction it then seeds through TenantData.forTenant',
};

/** Classes whose members query or write any table. */
const DATA_ACCESS_CLASSES = new Set(['DataSource', 'EntityManager', 'Repository', 'TreeRepository', 'MongoRepository', 'QueryRunner', 'BaseEntity']);
/**
 * Members of any TypeORM type that lead from a scoped query to the connection or to other rows.
 * The joins among them: a scoped builder names the company for its main alias only, so a join
 * read the joined table's rows of every company (a review joined documents to a new feature's
 * rows and got two companies' documents).
 */
const ESCAPE_MEMBERS = new Set([
  'connection',
  'manager',
  'queryRunner',
  'query',
  'createQueryBuilder',
  'getRepository',
  'transaction',
  'subQuery',
  'from',
  'addFrom',
  'setQueryRunner',
  'relation',
  ...['innerJoin', 'leftJoin'].flatMap((join) => [join, `${join}AndSelect`, `${join}AndMapOne`, `${join}AndMapMany`]),
  'loadRelationIdAndMap',
  'loadRelationCountAndMap',
]);
const INJECTION_DECORATORS = new Set(['InjectDataSource', 'InjectEntityManager', 'InjectRepository']);

const ROOT = process.cwd();

function typeormAccesses(): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.build.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error('tsconfig.build.json could not be read');
  const program = ts.createProgram(config.fileNames, { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const found = new Map<string, string[]>();
  // Only a member of those classes or an escape member can be found below, so only their names
  // are resolved: asking the checker about every property access type-checked all of src/.
  const suspectNames = new Set(ESCAPE_MEMBERS);
  for (const source of program.getSourceFiles()) {
    if (!source.fileName.includes('/node_modules/typeorm/')) continue;
    ts.forEachChild(source, function collect(node: ts.Node): void {
      if (ts.isClassDeclaration(node) && node.name && DATA_ACCESS_CLASSES.has(node.name.text)) {
        for (const member of node.members) if (member.name && (ts.isIdentifier(member.name) || ts.isPrivateIdentifier(member.name))) suspectNames.add(member.name.text);
      }
      ts.forEachChild(node, collect);
    });
  }

  for (const source of program.getSourceFiles()) {
    const file = relative(ROOT, source.fileName);
    if (!file.startsWith('src/') || file.endsWith('.d.ts')) continue;
    const add = (node: ts.Node, what: string) => {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.set(file, [...(found.get(file) ?? []), `${file}:${line + 1} ${what}`]);
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text === '@nestjs/typeorm') {
        const names = node.importClause?.namedBindings;
        if (names && ts.isNamedImports(names)) {
          for (const element of names.elements) if (INJECTION_DECORATORS.has(element.name.text)) add(element, `@${element.name.text}`);
        }
      }
      if (ts.isPropertyAccessExpression(node) && suspectNames.has(node.name.text)) {
        const member = checker.getSymbolAtLocation(node.name);
        for (const declaration of member?.declarations ?? []) {
          if (!declaration.getSourceFile().fileName.includes('/node_modules/typeorm/')) continue;
          const owner = ts.isClassDeclaration(declaration.parent) ? declaration.parent.name?.text : undefined;
          if ((owner && DATA_ACCESS_CLASSES.has(owner)) || ESCAPE_MEMBERS.has(node.name.text)) {
            add(node, `${owner ?? 'typeorm'}.${node.name.text}`);
            break;
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('tenant-owned data is reached only through TenantData', () => {
  let accesses: Map<string, string[]>;
  beforeAll(() => {
    accesses = typeormAccesses();
  }, 120_000);

  it('has no TypeORM data access outside the tenant-bound layer and the listed exceptions', () => {
    const outside = [...accesses].filter(([file]) => !(file in ALLOWED)).flatMap(([, lines]) => lines);
    expect(outside).toEqual([]);
  });

  it('lists only exceptions that exist and still need to be one', () => {
    const stale = Object.keys(ALLOWED).filter((file) => !existsSync(join(ROOT, file)) || !accesses.has(file));
    expect(stale).toEqual([]);
  });

  it('sees the accesses it is meant to catch', () => {
    expect(accesses.get('src/platform/tenancy/tenant-data.ts')?.join('\n')).toMatch(/EntityManager\.getRepository[\s\S]*Repository\.createQueryBuilder/);
  });
});
