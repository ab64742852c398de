import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, openStorage } from '../../src/storage/database.ts';
import { createTestDatabase } from '../support/engines.ts';

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
      const deadline = Date.now() + 5000;
      while (statSync(config.path).size === before && Date.now() < deadline) await sleep(100);
      assert.ok(statSync(config.path).size > before, 'the checkpoint thread wrote the WAL back');
    } finally {
      await storage.close();
      await database.drop();
    }
  });
});
