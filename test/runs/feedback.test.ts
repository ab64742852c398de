import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { bearer } from '../support/test-server.ts';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';

describe('run feedback', () => {
  let fixture: RunFixture;
  let runId: string;
  before(async () => {
    fixture = await startRunFixture('openai-chat');
    fixture.fake.enqueue({ text: ['The answer is 42.'] });
    ({ runId } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'q' }));
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  const post = (id: string, body: unknown, headers = fixture.headers) =>
    fixture.server.request('POST', `${fixture.ws}/agent-runs/${id}/feedback`, { body, headers });

  it('the first verdict answers 201, a repeat 200, and the last write wins', async () => {
    const first = await post(runId, { verdict: 'UP' });
    assert.equal(first.status, 201);
    assert.deepEqual(Object.keys(first.body).sort(), ['agentRunId', 'id', 'targetKind', 'verdict']);
    assert.equal(first.body.targetKind, 'agent_run');
    assert.equal(first.body.agentRunId, runId);
    const second = await post(runId, { verdict: 'DOWN', explanation: 'wrong' });
    assert.equal(second.status, 200);
    assert.equal(second.body.id, first.body.id, 'one verdict per run');
    assert.equal(second.body.verdict, 'DOWN');
  });

  it('contentSnapshot defaults to the run final text; the author is the calling API key', async () => {
    const listing = await fixture.server.request('GET', `${fixture.ws}/reply-feedback`, {
      headers: fixture.headers,
    });
    assert.equal(listing.status, 200);
    const entry = listing.body.feedback.find((item: { agentRunId: string }) => item.agentRunId === runId);
    assert.equal(entry.contentSnapshot, 'The answer is 42.');
    assert.equal(entry.verdict, 'DOWN');
    assert.equal(entry.explanation, 'wrong');
    const keys = await fixture.server.admin('GET', `/workspaces/${fixture.slug}/api-keys`);
    assert.equal(entry.authorApiKeyId, keys.body.apiKeys[0].id);
  });

  it('an unknown run is 404 with the error text Run not found', async () => {
    const response = await post('run_01jzzzzzzzzzzzzzzzzzzzzzzz', { verdict: 'UP' });
    assert.equal(response.status, 404);
    assert.equal(response.body.error, 'Run not found');
  });

  it('validation: verdict UP or DOWN, explanation at most 8000 characters', async () => {
    for (const body of [{}, { verdict: 'MEH' }, { verdict: 'UP', explanation: 'x'.repeat(8001) }]) {
      const response = await post(runId, body);
      assert.equal(response.status, 400, JSON.stringify(body).slice(0, 40));
      assert.equal(response.body.error, 'invalid_request');
    }
    assert.equal((await post(runId, { verdict: 'UP', explanation: 'x'.repeat(8000) })).status, 200);
  });

  it("a run of another workspace is not found through this workspace's credential", async () => {
    await fixture.server.admin('POST', '/workspaces', { slug: 'stranger' });
    const key = await fixture.server.admin('POST', '/workspaces/stranger/api-keys', {});
    const response = await fixture.server.request(
      'POST',
      `/api/v1/workspaces/stranger/agent-runs/${runId}/feedback`,
      {
        body: { verdict: 'UP' },
        headers: bearer(key.body.key),
      },
    );
    assert.equal(response.status, 404);
  });
});
