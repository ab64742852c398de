import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, openStorage } from '../../src/storage/database.ts';
import { createTestDatabase } from '../support/engines.ts';
import { eventually } from '../support/waits.ts';

describe('SQLite WAL checkpoints run off the event loop', () => {
  it('commits leave the WAL alone (no automatic checkpoint) and the checkpoint thread folds it into the database', async () => {
    const database = await createTestDatabase('sqlite');
    const config = database.config;
    assert.equal(config.engine, 'sqlite');
    if (config.engine !== 'sqlite') return;
    const storage = openStorage(config);
    try {
      await migrateToLatest(storage);
      const before = statSync(config.path).size;
      for (let index = 0; index < 1500; index++) {
        await sql`insert into workspaces (id, slug, name, features, rate_limits, created_at, updated_at)
          values (${`ws_${index}`}, ${`slug-${index}`}, 'n', '{}', '{}', 'now', 'now')`.execute(storage.db);
      }
      assert.equal(statSync(config.path).size, before, 'the commits themselves did not checkpoint');
      // The checkpoint thread announces nothing: watch the database file grow.
      await eventually(
        () => statSync(config.path).size > before,
        'the checkpoint thread wrote the WAL back',
        {
          intervalMs: 100,
        },
      );
      assert.ok(statSync(config.path).size > before, 'the checkpoint thread wrote the WAL back');
    } finally {
      await storage.close();
      await database.drop();
    }
  });
});
