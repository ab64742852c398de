import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { migrateToLatest, openStorage, type Storage } from '../../src/storage/database.ts';
import { migrationProvider } from '../../src/storage/migrations/index.ts';
import { createTestDatabase, SCALE, TEST_POSTGRES_URL, type TestDatabase } from '../support/engines.ts';
import { migratedTemplate } from '../support/postgres-template.ts';

/** Every column of the public schema, with its type, nullability and default, in a stable order. */
async function columnsOf(storage: Storage): Promise<string[]> {
  const { rows } = await sql`
    select table_name, column_name, data_type, is_nullable, column_default
      from information_schema.columns where table_schema = 'public'
     order by table_name, column_name`.execute(storage.db);
  return rows.map((row) => JSON.stringify(row));
}

if (SCALE) {
  describe('test databases on PostgreSQL cloned from the migrated template', () => {
    const databases: TestDatabase[] = [];
    const open: Storage[] = [];
    let clone: TestDatabase;
    let migrated: TestDatabase;

    before(async () => {
      clone = await createTestDatabase('postgres', { migrated: true });
      migrated = await createTestDatabase('postgres');
      databases.push(clone, migrated);
    });
    after(async () => {
      await Promise.all(open.map((storage) => storage.close()));
      await Promise.all(databases.map((database) => database.drop()));
    });

    const storageOn = (database: TestDatabase): Storage => {
      const storage = openStorage(database.config);
      open.push(storage);
      return storage;
    };

    it('a clone has every migration applied: migrating it applies none', async () => {
      const applied = await migrateToLatest(storageOn(clone));
      assert.deepEqual(applied, []);
    });

    it('a clone has the schema that applying the migrations to an empty database gives', async () => {
      const fresh = storageOn(migrated);
      assert.deepEqual(await migrateToLatest(fresh), Object.keys(await migrationProvider.getMigrations()));
      const expected = await columnsOf(fresh);
      assert.ok(expected.length > 50, `the migrations create the schema (${expected.length} columns)`);
      assert.deepEqual(await columnsOf(storageOn(clone)), expected);
    });

    it('the template accepts no connections, so a clone never finds it in use', async () => {
      const url = new URL(TEST_POSTGRES_URL);
      url.pathname = `/${await migratedTemplate(TEST_POSTGRES_URL)}`;
      const client = new pg.Client({ connectionString: url.toString() });
      await assert.rejects(client.connect(), /not currently accepting connections/);
    });
  });
}
