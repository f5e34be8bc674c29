import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The schema lives in hand-written SQL files under `migrations/` at the project root, named
 * `<13-digit timestamp>-<name>.sql`, each with an up part and, after a `-- migrate:down` line,
 * its reverse. They run through TypeORM's migration runner (table `migrations`). This file sits
 * at the same depth under `src/` and `dist/`, so the folder is found from either.
 */
const MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations/', import.meta.url));

const FILE = /^(\d{13})-([a-z0-9-]+)\.sql$/;
const DOWN_MARKER = /^-- migrate:down\s*$/m;

export function loadSqlMigrations(dir = MIGRATIONS_DIR): (new () => MigrationInterface)[] {
  return readdirSync(dir)
    .filter((file) => FILE.test(file))
    .sort()
    .map((file) => {
      const [, timestamp, name] = FILE.exec(file)!;
      const [up, down = ''] = readFileSync(`${dir}/${file}`, 'utf8').split(DOWN_MARKER);
      const className = `${name.replace(/(^|-)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase())}${timestamp}`;
      return {
        [className]: class implements MigrationInterface {
          name = className;
          async up(runner: QueryRunner): Promise<void> {
            await runner.query(up);
          }
          async down(runner: QueryRunner): Promise<void> {
            if (down.trim()) await runner.query(down);
          }
        },
      }[className];
    });
}
