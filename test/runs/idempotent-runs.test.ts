import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { TestLeftovers } from '../support/run-cleanup.ts';
import {
  bearer,
  createWorkspaceWithKey,
  startTestServer,
  type TestResponse,
  type TestServer,
} from '../support/test-server.ts';

/** Extensions §5 on `POST {ws}/agent-runs`, at the HTTP boundary, on the run's deployment. */
describe('idempotent run creation (Idempotency-Key)', () => {
  let server: TestServer;
  let ws: Awaited<ReturnType<typeof createWorkspaceWithKey>>;
  const leftovers = new TestLeftovers();
  let keyCount = 0;
  const newKey = () => `idem-${process.pid}-${(keyCount += 1)}`;

  before(async () => {
    server = await startTestServer({ dev: true });
    ws = await createWorkspaceWithKey(server, 'idem-runs');
  });
  afterEach(() => leftovers.cleanUp());
  after(() => server.close());

  const create = async (key: string | undefined, body: unknown, on: TestServer = server) => {
    const response = await on.request('POST', `${ws.ws}/agent-runs`, {
      body,
      headers: { ...bearer(ws.key), ...(key !== undefined && { 'idempotency-key': key }) },
    });
    if (response.status === 202) {
      leftovers.trackRun({ server, ws: ws.ws, runId: response.body.runId, headers: bearer(ws.key) });
    }
    return response;
  };
  const runsOf = async (workspace = ws) => {
    const { db } = server.service.resources.storage;
    const ids = await db
      .selectFrom('runs')
      .innerJoin('workspaces', 'workspaces.id', 'runs.workspace_id')
      .select('runs.id')
      .where('workspaces.slug', '=', workspace.slug)
      .execute();
    return ids.map((row) => row.id);
  };
  const assertReplayOf = (first: TestResponse, replay: TestResponse) => {
    assert.equal(replay.status, first.status);
    assert.deepEqual(replay.body, first.body);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  };

  it('a repeat with the same key and an equal JSON body answers the kept 202 with Idempotent-Replayed: true and creates nothing', async () => {
    const before = (await runsOf()).length;
    const key = newKey();
    const first = await create(key, { systemPrompt: 's', prompt: 'hi', metadata: { a: '1', b: '2' } });
    assert.equal(first.status, 202);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    // Key order does not make another body.
    const replay = await create(key, { metadata: { b: '2', a: '1' }, prompt: 'hi', systemPrompt: 's' });
    assertReplayOf(first, replay);
    assert.equal(replay.body.runId, first.body.runId);
    assert.equal((await runsOf()).length, before + 1);
  });

  it('the same key with a different body: 422 idempotency_key_reused', async () => {
    const key = newKey();
    assert.equal((await create(key, { systemPrompt: 's', prompt: 'one' })).status, 202);
    const reused = await create(key, { systemPrompt: 's', prompt: 'two' });
    assert.equal(reused.status, 422);
    assert.equal(reused.body.error, 'idempotency_key_reused');
    assert.equal(typeof reused.body.message, 'string');
  });

  it('a first request answered 4xx is not kept: the retry with the key is processed anew', async () => {
    const key = newKey();
    const refused = await create(key, { systemPrompt: 's' });
    assert.equal(refused.status, 400);
    const again = await create(key, { systemPrompt: 's' });
    assert.equal(again.status, 400);
    assert.equal(again.headers.get('idempotent-replayed'), null);
    // Not kept, so another body is not "reused" either.
    const fixed = await create(key, { systemPrompt: 's', prompt: 'now with a prompt' });
    assert.equal(fixed.status, 202);
    assert.equal(fixed.headers.get('idempotent-replayed'), null);
  });

  it('keys are scoped to the workspace: the same key in another workspace creates its own run', async () => {
    const other = await createWorkspaceWithKey(server, 'idem-runs-other');
    const key = newKey();
    const here = await create(key, { systemPrompt: 's', prompt: 'hi' });
    const there = await server.request('POST', `${other.ws}/agent-runs`, {
      body: { systemPrompt: 's', prompt: 'hi' },
      headers: { ...bearer(other.key), 'idempotency-key': key },
    });
    assert.equal(there.status, 202);
    leftovers.trackRun({ server, ws: other.ws, runId: there.body.runId, headers: bearer(other.key) });
    assert.notEqual(there.body.runId, here.body.runId);
    assert.equal(there.headers.get('idempotent-replayed'), null);
  });

  it('an invalid key (empty, over 255 characters, not visible ASCII) is 400 invalid_request', async () => {
    for (const key of ['', 'k'.repeat(256), 'has space']) {
      const refused = await create(key, { systemPrompt: 's', prompt: 'hi' });
      assert.equal(refused.status, 400, `key ${JSON.stringify(key.slice(0, 20))}`);
      assert.equal(refused.body.error, 'invalid_request');
      assert.match(refused.body.message, /Idempotency-Key/);
      assert.equal(refused.headers.get('x-ratelimit-bucket'), 'run_start', 'a refused creation is metered');
    }
    assert.equal((await create('k'.repeat(255), { systemPrompt: 's', prompt: 'hi' })).status, 202);
  });

  it('concurrent identical requests (10, across API replicas where there are several) create exactly one run', async () => {
    const other = await server.otherReplica();
    const key = newKey();
    const before = (await runsOf()).length;
    const body = { systemPrompt: 's', prompt: 'together' };
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create(key, body, i % 2 === 0 ? server : other)),
    );
    const created = answers.filter((answer) => answer.status === 202);
    assert.ok(created.length >= 1, `statuses ${answers.map((a) => a.status).join(',')}`);
    assert.equal(new Set(created.map((answer) => answer.body.runId)).size, 1);
    for (const answer of answers.filter((a) => a.status !== 202)) {
      assert.equal(answer.status, 409);
      assert.equal(answer.body.error, 'idempotency_key_in_use');
      assert.ok(Number(answer.headers.get('retry-after')) >= 1);
    }
    assert.equal((await runsOf()).length, before + 1);
    // Once answered, every repeat is the replay.
    assertReplayOf(created[0]!, await create(key, body, other));
  });

  it('a claim left by a request that crashed after creating its run is taken over: the same run is answered, none created', async () => {
    const key = newKey();
    const body = { systemPrompt: 's', prompt: 'crash' };
    const first = await create(key, body);
    assert.equal(first.status, 202);
    // As if the process died between storing the run and keeping the answer, over a minute ago.
    await server.service.resources.storage.db
      .updateTable('idempotency_keys')
      .set({
        state: 'in_progress',
        response_status: null,
        response_body: null,
        claimed_at: new Date(Date.now() - 120_000).toISOString(),
      })
      .where('key', '=', key)
      .execute();
    const before = (await runsOf()).length;
    const retried = await create(key, body);
    assert.equal(retried.status, 202);
    assert.equal(retried.body.runId, first.body.runId);
    assert.equal((await runsOf()).length, before);
    assertReplayOf(retried, await create(key, body));
  });

  it('a replay consumes no run-start capacity (it counts in transport)', async () => {
    const tight = await createWorkspaceWithKey(server, 'idem-tight', { rateLimits: { runStart: 2 } });
    const post = async (key: string, prompt: string) => {
      const response = await server.request('POST', `${tight.ws}/agent-runs`, {
        body: { systemPrompt: 's', prompt },
        headers: { ...bearer(tight.key), 'idempotency-key': key },
      });
      if (response.status === 202 && response.headers.get('idempotent-replayed') === null) {
        leftovers.trackRun({ server, ws: tight.ws, runId: response.body.runId, headers: bearer(tight.key) });
      }
      return response;
    };
    const first = await post('tight-1', 'one');
    assert.equal(first.status, 202);
    assert.equal(first.headers.get('x-ratelimit-remaining'), '1');
    for (let i = 0; i < 3; i += 1) {
      const replay = await post('tight-1', 'one');
      assert.equal(replay.status, 202);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.headers.get('x-ratelimit-bucket'), 'transport');
    }
    const second = await post('tight-2', 'two');
    assert.equal(second.status, 202, 'the replays left the second run-start slot free');
    assert.equal(second.headers.get('x-ratelimit-remaining'), '0');
    const third = await post('tight-3', 'three');
    assert.equal(third.status, 429);
    // Refused, so not kept: still no replay of a 429.
    assert.equal((await post('tight-3', 'three')).status, 429);
  });
});
