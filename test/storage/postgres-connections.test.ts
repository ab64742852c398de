import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { openStorage } from '../../src/storage/database.ts';
import { createTestDatabase, SCALE, TEST_POSTGRES_URL } from '../support/engines.ts';

if (SCALE) {
  describe('PostgreSQL connection pool', () => {
    it('an idle pooled connection that fails is dropped and reported, the process keeps running, the next query reconnects', async () => {
      const database = await createTestDatabase('postgres');
      const failures: Error[] = [];
      const storage = openStorage(database.config, {
        ...(database.pgSchema && { pgSchema: database.pgSchema }),
        onIdleConnectionError: (error) => failures.push(error),
      });
      const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await admin.connect();
      try {
        const backendPid = async () =>
          (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(storage.db)).rows[0]!.pid;
        const idlePid = await backendPid();
        // What a server restart, a failover or an idle timeout does to a pooled connection.
        await admin.query('select pg_terminate_backend($1)', [idlePid]);
        for (let waited = 0; failures.length === 0 && waited < 5000; waited += 20) await sleep(20);
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
