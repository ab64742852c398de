import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, openStorage, type Storage } from '../../src/storage/database.ts';
import { createTestDatabase } from '../support/engines.ts';
import { eventually } from '../support/waits.ts';

/** More commits than SQLite's automatic checkpoint threshold (1,000 WAL pages) would allow. */
const COMMITS = 1500;

async function insertWorkspaces(storage: Storage, prefix: string): Promise<void> {
  for (let index = 0; index < COMMITS; index++) {
    await sql`insert into workspaces (id, slug, name, features, rate_limits, created_at, updated_at)
      values (${`ws_${prefix}${index}`}, ${`slug-${prefix}${index}`}, 'n', '{}', '{}', 'now', 'now')`.execute(
      storage.db,
    );
  }
}

describe('SQLite WAL checkpoints run off the event loop', () => {
  it('commits leave the WAL alone (no automatic checkpoint); closing folds it into the database', async () => {
    const database = await createTestDatabase('sqlite');
    const config = database.config;
    assert.equal(config.engine, 'sqlite');
    if (config.engine !== 'sqlite') return;
    // The thread's timer is set past the test, so only a commit could have checkpointed.
    const storage = openStorage(config, { sqliteCheckpointIntervalMs: 3_600_000 });
    let closed = false;
    try {
      await migrateToLatest(storage);
      const before = statSync(config.path).size;
      await insertWorkspaces(storage, '');
      assert.equal(statSync(config.path).size, before, 'the commits themselves did not checkpoint');
      closed = true;
      await storage.close();
      assert.ok(statSync(config.path).size > before, 'the final checkpoint at close wrote the WAL back');
    } finally {
      if (!closed) await storage.close();
      await database.drop();
    }
  });

  it('the checkpoint thread folds the WAL into the database on its own, while the service runs', async () => {
    const database = await createTestDatabase('sqlite');
    const config = database.config;
    if (config.engine !== 'sqlite') return;
    const storage = openStorage(config);
    try {
      await migrateToLatest(storage);
      const before = statSync(config.path).size;
      await insertWorkspaces(storage, 'b');
      // The checkpoint thread announces nothing: watch the database file grow.
      await eventually(
        () => statSync(config.path).size > before,
        'the checkpoint thread wrote the WAL back',
        {
          intervalMs: 100,
        },
      );
    } finally {
      await storage.close();
      await database.drop();
    }
  });
});
