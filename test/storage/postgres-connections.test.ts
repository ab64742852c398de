import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { openStorage } from '../../src/storage/database.ts';
import { createTestDatabase, SCALE, TEST_POSTGRES_URL } from '../support/engines.ts';
import { deferred, WAIT_CAP_MS, withCap } from '../support/waits.ts';

if (SCALE) {
  describe('PostgreSQL connection pool', () => {
    it('an idle pooled connection that fails is dropped and reported, the process keeps running, the next query reconnects', async () => {
      const database = await createTestDatabase('postgres');
      const failures: Error[] = [];
      const failed = deferred();
      const storage = openStorage(database.config, {
        onIdleConnectionError: (error) => {
          failures.push(error);
          failed.resolve();
        },
      });
      const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await admin.connect();
      try {
        const backendPid = async () =>
          (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(storage.db)).rows[0]!.pid;
        const idlePid = await backendPid();
        // What a server restart, a failover or an idle timeout does to a pooled connection.
        await admin.query('select pg_terminate_backend($1)', [idlePid]);
        await withCap(
          failed.promise,
          WAIT_CAP_MS,
          () => 'the pool reported no failure of its idle connection',
        );
        assert.equal(failures.length, 1, 'the failure reached the listener (without one the pool throws it)');
        assert.match(failures[0]!.message, /terminat/);
        const nextPid = await backendPid();
        assert.notEqual(nextPid, idlePid, 'the next query runs on a new connection');
      } finally {
        await admin.end();
        await storage.close();
        await database.drop();
      }
    });
  });
}
