import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { openSse, readAll } from '../support/sse-client.ts';
import { bearer, createWorkspaceWithKey, startTestServer, type TestServer } from '../support/test-server.ts';

describe('rate limits per workspace and credential', () => {
  let server: TestServer;
  let ws: Awaited<ReturnType<typeof createWorkspaceWithKey>>;
  const run = { systemPrompt: 's', prompt: 'hi' };

  before(async () => {
    server = await startTestServer({ dev: true });
    ws = await createWorkspaceWithKey(server, 'limited', {
      rateLimits: { runStart: 3, lifecycle: 2, otherMutations: 2 },
    });
  });
  after(() => server.close());

  /**
   * The runs a test started, read to their end after it: the offline mock model ends them by itself,
   * and reading a stream is transport, so the buckets under test are left alone.
   */
  const started: Array<{ ws: string; runId: string; key: string }> = [];
  afterEach(async () => {
    await Promise.all(
      started
        .splice(0)
        .map(({ ws: path, runId, key }) =>
          readAll(`${server.baseUrl}${path}/agent-runs/${runId}/stream`, bearer(key)),
        ),
    );
  });
  const track = (wsPath: string, key: string, created: { status: number; body: { runId?: string } }) => {
    if (created.status === 202 && created.body.runId)
      started.push({ ws: wsPath, runId: created.body.runId, key });
  };

  const post = async (path: string, body: unknown, key = ws.key) => {
    const response = await server.request('POST', `${ws.ws}${path}`, { body, headers: bearer(key) });
    if (path === '/agent-runs' || path.endsWith('/messages')) track(ws.ws, key, response);
    return response;
  };

  it('metered responses carry X-RateLimit-Limit, -Remaining, -Reset and -Bucket', async () => {
    const response = await post('/agent-runs', run);
    assert.equal(response.status, 202);
    assert.equal(response.headers.get('x-ratelimit-limit'), '3');
    assert.equal(response.headers.get('x-ratelimit-remaining'), '2');
    assert.equal(response.headers.get('x-ratelimit-bucket'), 'run_start');
    const reset = Number(response.headers.get('x-ratelimit-reset'));
    assert.ok(
      reset > Date.now() / 1000 && reset <= Date.now() / 1000 + 61,
      `reset ${reset} is within the minute`,
    );
  });

  it('past the run-start maximum: 429 rate_limit_exceeded with Retry-After; the run is not created', async () => {
    await post('/agent-runs', run);
    await post('/agent-runs', run);
    const refused = await post('/agent-runs', run);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error, 'rate_limit_exceeded');
    assert.equal(refused.body.code, 'rate_limit_exceeded');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
  });

  it('past the limit the 429 comes before the body is read: a malformed body is not parsed', async () => {
    const refused = await server.request('POST', `${ws.ws}/agent-runs`, {
      body: '{"systemPrompt": "s", "prompt": ',
      headers: { ...bearer(ws.key), 'content-type': 'application/json' },
    });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error, 'rate_limit_exceeded');
  });

  it('message runs draw from the same run-start bucket', async () => {
    const session = await post('/agent-sessions', { systemPrompt: 's' });
    assert.equal(session.status, 201);
    const message = await post(`/agent-sessions/${session.body.sessionId}/messages`, { prompt: 'hi' });
    assert.equal(message.status, 429);
    assert.equal(message.headers.get('x-ratelimit-bucket'), 'run_start');
  });

  it('reads and SSE opens are transport: they never consume run-start capacity', async () => {
    const models = await server.request('GET', `${ws.ws}/models`, { headers: bearer(ws.key) });
    assert.equal(models.status, 200);
    assert.equal(models.headers.get('x-ratelimit-bucket'), 'transport');
  });

  it('an SSE stream open is metered as transport and carries the X-RateLimit headers', async () => {
    const other = await server.admin('POST', '/workspaces/limited/api-keys', { name: 'streams' });
    const created = await post('/agent-runs', run, other.body.key);
    const stream = await openSse(
      `${server.baseUrl}${ws.ws}/agent-runs/${created.body.runId}/stream`,
      bearer(other.body.key),
    );
    try {
      assert.equal(stream.status, 200);
      assert.equal(stream.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      assert.equal(stream.headers.get('x-ratelimit-bucket'), 'transport');
      assert.equal(stream.headers.get('x-ratelimit-limit'), '6000');
      assert.equal(stream.headers.get('x-ratelimit-remaining'), '5999');
      assert.ok(Number(stream.headers.get('x-ratelimit-reset')) > Date.now() / 1000);
    } finally {
      stream.close();
    }
  });

  it('an operator may set the transport limit of a workspace: reads report it and are refused past it', async () => {
    const streaming = await createWorkspaceWithKey(server, 'streaming', { rateLimits: { transport: 2 } });
    const models = () => server.request('GET', `${streaming.ws}/models`, { headers: bearer(streaming.key) });
    const first = await models();
    assert.equal(first.headers.get('x-ratelimit-bucket'), 'transport');
    assert.equal(first.headers.get('x-ratelimit-limit'), '2');
    assert.equal((await models()).status, 200);
    const third = await models();
    assert.equal(third.status, 429);
    assert.equal(third.body.error, 'rate_limit_exceeded');
    const raised = await server.admin('PATCH', '/workspaces/streaming', {
      rateLimits: { transport: 50_000 },
    });
    assert.equal(raised.status, 200);
    assert.equal((await models()).headers.get('x-ratelimit-limit'), '50000');
  });

  it('a transport limit outside 1..1,000,000 per minute is refused with 400 invalid_request', async () => {
    const refused = await server.admin('POST', '/workspaces', {
      slug: 'too-many',
      rateLimits: { transport: 0 },
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, 'invalid_request');
  });

  it('an operator changing a limit keeps the count of the current window', async () => {
    const changing = await createWorkspaceWithKey(server, 'changing', { rateLimits: { otherMutations: 3 } });
    const createSession = () =>
      server.request('POST', `${changing.ws}/agent-sessions`, {
        body: { systemPrompt: 's' },
        headers: bearer(changing.key),
      });
    for (let i = 0; i < 3; i += 1) assert.equal((await createSession()).status, 201);
    assert.equal((await createSession()).status, 429);
    const raised = await server.admin('PATCH', '/workspaces/changing', { rateLimits: { otherMutations: 5 } });
    assert.equal(raised.status, 200);
    // Four requests counted in this window already: one more fits under the new maximum of five.
    const fifth = await createSession();
    assert.equal(fifth.status, 201);
    assert.equal(fifth.headers.get('x-ratelimit-limit'), '5');
    assert.equal(fifth.headers.get('x-ratelimit-remaining'), '0');
    assert.equal((await createSession()).status, 429);
    await server.admin('PATCH', '/workspaces/changing', { rateLimits: { otherMutations: 2 } });
    assert.equal((await createSession()).status, 429);
  });

  it('each credential has its own window', async () => {
    const other = await server.admin('POST', '/workspaces/limited/api-keys', { name: 'second' });
    const response = await post('/agent-runs', run, other.body.key);
    assert.equal(response.status, 202);
  });

  it('lifecycle calls (cancel, tool results, feedback) have their own bucket', async () => {
    const other = await server.admin('POST', '/workspaces/limited/api-keys', { name: 'third' });
    const created = await post('/agent-runs', run, other.body.key);
    const cancel = () => post(`/agent-runs/${created.body.runId}/cancel`, {}, other.body.key);
    assert.equal((await cancel()).headers.get('x-ratelimit-bucket'), 'lifecycle');
    assert.equal((await cancel()).status, 200);
    assert.equal((await cancel()).status, 429);
  });

  it('other mutations (session create and delete) have their own bucket', async () => {
    const other = await server.admin('POST', '/workspaces/limited/api-keys', { name: 'fourth' });
    const first = await post('/agent-sessions', { systemPrompt: 's' }, other.body.key);
    assert.equal(first.headers.get('x-ratelimit-bucket'), 'other_mutations');
    await post('/agent-sessions', { systemPrompt: 's' }, other.body.key);
    assert.equal((await post('/agent-sessions', { systemPrompt: 's' }, other.body.key)).status, 429);
  });

  it('the spec default for run starts is 120 per minute', async () => {
    const open = await createWorkspaceWithKey(server, 'defaults');
    const response = await server.request('POST', `${open.ws}/agent-runs`, {
      body: run,
      headers: bearer(open.key),
    });
    track(open.ws, open.key, response);
    assert.equal(response.headers.get('x-ratelimit-limit'), '120');
  });
});
