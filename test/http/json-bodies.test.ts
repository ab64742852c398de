import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../src/http/plugins/json-body.ts';
import { readAll } from '../support/sse-client.ts';
import { bearer, createWorkspaceWithKey, startTestServer, type TestServer } from '../support/test-server.ts';

/** A run body whose tool schema holds an array nested `depth` levels deep, as raw JSON text. */
const runWithNesting = (depth: number) =>
  `{"systemPrompt":"s","prompt":"p","tools":[{"kind":"local","name":"t","parameters":{"type":"object",` +
  `"properties":{"x":{"default":${'['.repeat(depth)}${']'.repeat(depth)}}}}}]}`;

describe('JSON request bodies', () => {
  let server: TestServer;
  let ws: Awaited<ReturnType<typeof createWorkspaceWithKey>>;
  before(async () => {
    server = await startTestServer({ dev: true });
    ws = await createWorkspaceWithKey(server, 'bodies');
  });
  after(() => server.close());

  const createRun = (body: string) =>
    server.request('POST', `${ws.ws}/agent-runs`, { body, headers: bearer(ws.key) });

  it('a body nested deeper than the limit is 400 invalid_request, however deep (never a 500)', async () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 10_000, 200_000]) {
      const refused = await createRun(runWithNesting(depth));
      assert.equal(refused.status, 400, `depth ${depth}`);
      assert.deepEqual(refused.body, {
        error: 'invalid_request',
        message: `the body is nested deeper than ${MAX_JSON_DEPTH} levels`,
      });
    }
  });

  it('nesting within the limit is accepted', async () => {
    const created = await createRun(runWithNesting(100));
    assert.equal(created.status, 202);
    // The run is the offline mock model's, which ends it by itself: read it to its end.
    await readAll(`${server.baseUrl}${ws.ws}/agent-runs/${created.body.runId}/stream`, bearer(ws.key));
  });

  it('the depth count: scalars are not levels; each array or object is one', () => {
    assert.equal(nestedDeeperThan('text', 0), false);
    assert.equal(nestedDeeperThan({}, 0), true);
    assert.equal(nestedDeeperThan({ a: [1, { b: 2 }] }, 2), true);
    assert.equal(nestedDeeperThan({ a: [1, { b: 2 }] }, 3), false);
  });
});
