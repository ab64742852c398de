import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { SCALE_OUT } from '../support/deployment.ts';
import { TestLeftovers } from '../support/run-cleanup.ts';
import { bearer, createWorkspaceWithKey, startTestServer, type TestServer } from '../support/test-server.ts';
import { deferred, eventually } from '../support/waits.ts';

/**
 * Extensions §5: "a repeat while the first is still being processed: 409 idempotency_key_in_use with
 * Retry-After". The first request is held where it stores its run: a transaction of the test holds
 * PostgreSQL's EXCLUSIVE lock on `runs` (reads go on, inserts wait). That needs PostgreSQL, so the
 * embedded deployment runs this file on it too; the claim logic on SQLite is covered by
 * test/storage/idempotency-keys.test.ts.
 */
describe('a repeat while the first request with the key is in progress', () => {
  let server: TestServer;
  let ws: Awaited<ReturnType<typeof createWorkspaceWithKey>>;
  const leftovers = new TestLeftovers();

  before(async () => {
    server = await startTestServer({ dev: true, ...(!SCALE_OUT && { storageEngine: 'postgres' as const }) });
    ws = await createWorkspaceWithKey(server, 'idem-held');
  });
  afterEach(() => leftovers.cleanUp());
  after(() => server.close());

  const create = (key: string, body: unknown) =>
    server.request('POST', `${ws.ws}/agent-runs`, {
      body,
      headers: { ...bearer(ws.key), 'idempotency-key': key },
    });

  /** Holds inserts into `runs` until `release` is called. */
  const holdRunInserts = async () => {
    const locked = deferred();
    const release = deferred();
    const held = server.service.resources.storage.db.transaction().execute(async (trx) => {
      await sql`LOCK TABLE runs IN EXCLUSIVE MODE`.execute(trx);
      locked.resolve();
      await release.promise;
    });
    await locked.promise;
    return async () => {
      release.resolve();
      await held;
    };
  };

  it('answers 409 idempotency_key_in_use with Retry-After, then the kept answer once the first is done', async () => {
    const body = { systemPrompt: 's', prompt: 'slow' };
    const release = await holdRunInserts();
    let first;
    try {
      first = create('held-1', body);
      await eventually(async () => {
        const row = await server.service.resources.storage.db
          .selectFrom('idempotency_keys')
          .select('state')
          .where('key', '=', 'held-1')
          .executeTakeFirst();
        return row?.state === 'in_progress';
      }, 'the first request claimed its key');
      const repeat = await create('held-1', body);
      assert.equal(repeat.status, 409);
      assert.equal(repeat.body.error, 'idempotency_key_in_use');
      assert.equal(repeat.headers.get('retry-after'), '1');
      // Another body is refused as such even while the first is in progress.
      const other = await create('held-1', { ...body, prompt: 'other' });
      assert.equal(other.status, 422);
      assert.equal(other.body.error, 'idempotency_key_reused');
    } finally {
      await release();
    }
    const answered = await first;
    assert.equal(answered.status, 202);
    leftovers.trackRun({ server, ws: ws.ws, runId: answered.body.runId, headers: bearer(ws.key) });
    const replay = await create('held-1', body);
    assert.equal(replay.status, 202);
    assert.equal(replay.body.runId, answered.body.runId);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  });
});
