import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { StoreUnavailableError } from '../../src/domain/errors.ts';
import { openStorage } from '../../src/storage/database.ts';
import { createTestDatabase, SCALE, TEST_POSTGRES_URL } from '../support/engines.ts';
import { deferred, WAIT_CAP_MS, withCap } from '../support/waits.ts';
import { freePort } from '../scale/private-servers.ts';

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

    it('a connection whose backend is terminated while it is checked out (57P01, as `pg_ctl stop -m fast` does) fails its statement as StoreUnavailableError; the process keeps running', async () => {
      const database = await createTestDatabase('postgres');
      const storage = openStorage(database.config, {
        onIdleConnectionError: () => undefined,
      });
      const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await admin.connect();
      try {
        const inTransaction = storage.db.transaction().execute(async (trx) => {
          const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid;
          await admin.query('select pg_terminate_backend($1)', [pid]);
          // The connection's `error` event comes while no query runs: it must not stop the process.
          await new Promise((resolve) => setTimeout(resolve, 100));
          await sql`select 1`.execute(trx);
        });
        await assert.rejects(inTransaction, StoreUnavailableError);
        await storage.ping();
      } finally {
        await admin.end();
        await storage.close();
        await database.drop();
      }
    });

    it('a database that refuses connections is StoreUnavailableError at once', async () => {
      const url = `postgres://postgres@127.0.0.1:${await freePort()}/nothing`;
      const storage = openStorage({ engine: 'postgres', url }, { onIdleConnectionError: () => undefined });
      try {
        const started = Date.now();
        await assert.rejects(storage.ping(), StoreUnavailableError);
        assert.ok(Date.now() - started < 5000, 'no wait for a connection timeout');
      } finally {
        await storage.close();
      }
    });
  });
}
