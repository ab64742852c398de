import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { Migrator } from 'kysely/migration';
import { openStorage, type Engine, type Storage } from '../../src/storage/database.ts';
import { migrationProvider } from '../../src/storage/migrations/index.ts';
import { createRepositories, type Repositories } from '../../src/storage/repositories/index.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from './engines.ts';

/** What a suite of `describeMigrationOnEachEngine` works on. */
export interface MigrationSuite {
  engine: Engine;
  /** The suite's storage on a database of its own, at the migration the suite started from. */
  storage: Storage;
  repos: Repositories;
  /** Migrates up or down to the named migration (asserting that it succeeds). */
  migrateTo(name: string): Promise<void>;
}

/**
 * Registers `tests` once for each engine under test, in a suite `${title} on ${engine}` over a fresh
 * database of its own migrated up to `from` (a migration's name, or `latest`), dropped after it. As
 * with `describeOnEachEngine`, `storage` and `repos` are filled in by the suite's first `before`.
 */
export function describeMigrationOnEachEngine(
  title: string,
  from: string,
  tests: (suite: MigrationSuite) => void,
): void {
  for (const engine of ENGINES) {
    describe(`${title} on ${engine}`, () => {
      const storage = {} as Storage;
      const repos = {} as Repositories;
      let database: TestDatabase | undefined;
      let opened: Storage | undefined;
      let migrator: Migrator | undefined;
      const migrateTo = async (name: string) => {
        const result = await (name === 'latest' ? migrator?.migrateToLatest() : migrator?.migrateTo(name));
        assert.equal(result?.error, undefined);
      };
      before(async () => {
        database = await createTestDatabase(engine);
        opened = openStorage(database.config);
        Object.assign(storage, opened);
        Object.assign(repos, createRepositories(opened.db));
        migrator = new Migrator({ db: opened.db, provider: migrationProvider });
        await migrateTo(from);
      });
      after(async () => {
        await opened?.close();
        await database?.drop();
      });
      tests({ engine, storage, repos, migrateTo });
    });
  }
}
