import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { TestLeftovers } from '../support/run-cleanup.ts';
import { bearer, createWorkspaceWithKey, startTestServer, type TestServer } from '../support/test-server.ts';

/** Extensions §5 on `POST {ws}/agent-sessions` and `POST {ws}/agent-sessions/{sessionId}/messages`. */
describe('idempotent session and message creation (Idempotency-Key)', () => {
  let server: TestServer;
  let ws: Awaited<ReturnType<typeof createWorkspaceWithKey>>;
  const leftovers = new TestLeftovers();

  before(async () => {
    server = await startTestServer({ dev: true });
    ws = await createWorkspaceWithKey(server, 'idem-sessions');
  });
  afterEach(() => leftovers.cleanUp());
  after(() => server.close());

  const post = async (path: string, key: string, body: unknown) => {
    const response = await server.request('POST', `${ws.ws}${path}`, {
      body,
      headers: { ...bearer(ws.key), 'idempotency-key': key },
    });
    if (path.endsWith('/messages') && response.status === 202) {
      leftovers.trackRun({ server, ws: ws.ws, runId: response.body.runId, headers: bearer(ws.key) });
    }
    return response;
  };
  const count = async (table: 'sessions' | 'runs') => {
    const { db } = server.service.resources.storage;
    const row = await db
      .selectFrom(table)
      .innerJoin('workspaces', 'workspaces.id', `${table}.workspace_id`)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspaces.slug', '=', ws.slug)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  it('session creation: a repeat answers the kept 201 with Idempotent-Replayed: true; one session exists', async () => {
    const before = await count('sessions');
    const first = await post('/agent-sessions', 'ses-1', { systemPrompt: 's', metadata: { x: '1' } });
    assert.equal(first.status, 201);
    const replay = await post('/agent-sessions', 'ses-1', { metadata: { x: '1' }, systemPrompt: 's' });
    assert.equal(replay.status, 201);
    assert.deepEqual(replay.body, first.body);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(await count('sessions'), before + 1);
    const reused = await post('/agent-sessions', 'ses-1', { systemPrompt: 'another' });
    assert.equal(reused.status, 422);
    assert.equal(reused.body.error, 'idempotency_key_reused');
  });

  it('a message: a repeat answers the same runId and starts no second run', async () => {
    const session = await post('/agent-sessions', 'ses-2', { systemPrompt: 's' });
    const path = `/agent-sessions/${session.body.sessionId}/messages`;
    const before = await count('runs');
    const first = await post(path, 'msg-1', { prompt: 'hello' });
    assert.equal(first.status, 202);
    const replay = await post(path, 'msg-1', { prompt: 'hello' });
    assert.equal(replay.status, 202);
    assert.equal(replay.body.runId, first.body.runId);
    assert.equal(replay.body.streamUrl, first.body.streamUrl);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(await count('runs'), before + 1);
    assert.equal((await post(path, 'msg-1', { prompt: 'bye' })).status, 422);
  });

  it('keys are scoped to the route: the same key on another session, or on run creation, is another key', async () => {
    const one = await post('/agent-sessions', 'ses-3', { systemPrompt: 's' });
    const two = await post('/agent-sessions', 'ses-4', { systemPrompt: 's' });
    const first = await post(`/agent-sessions/${one.body.sessionId}/messages`, 'shared', { prompt: 'hi' });
    const second = await post(`/agent-sessions/${two.body.sessionId}/messages`, 'shared', { prompt: 'hi' });
    assert.equal(first.status, 202);
    assert.equal(second.status, 202);
    assert.notEqual(second.body.runId, first.body.runId);
    assert.equal(second.headers.get('idempotent-replayed'), null);
    const session = await post('/agent-sessions', 'shared', { systemPrompt: 's' });
    assert.equal(session.status, 201);
    assert.equal(session.headers.get('idempotent-replayed'), null);
  });

  it('a message answered 4xx is not kept: the retry with the key is processed anew', async () => {
    const missing = await post('/agent-sessions/ses_unknown/messages', 'msg-404', { prompt: 'hi' });
    assert.equal(missing.status, 404);
    const session = await post('/agent-sessions', 'ses-5', { systemPrompt: 's' });
    const path = `/agent-sessions/${session.body.sessionId}/messages`;
    assert.equal((await post(path, 'msg-400', { prompt: 'hi', metadata: 'not an object' })).status, 400);
    const accepted = await post(path, 'msg-400', { prompt: 'hi' });
    assert.equal(accepted.status, 202);
    assert.equal(accepted.headers.get('idempotent-replayed'), null);
  });
});
