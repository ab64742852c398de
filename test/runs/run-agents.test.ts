import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { bearer } from '../support/test-server.ts';
import { startRunFixture, types, type RunFixture } from '../support/run-fixture.ts';

describe('persisted agents (agentId) and credential allowlists', () => {
  let fixture: RunFixture;
  let agentId: string;
  let systemAgentId: string;
  let otherAgentId: string;

  before(async () => {
    fixture = await startRunFixture('openai-chat');
    const agent = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/agents`, {
      name: 'Support',
      systemPrompt: 'You are the stored support agent.',
      reasoningLevel: 'high',
      tools: [{ kind: 'local', name: 'lookup_order', description: 'Look up an order' }],
    });
    agentId = agent.body.id;
    const system = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/agents`, {
      name: 'Internal',
      systemPrompt: 'internal',
      system: true,
    });
    systemAgentId = system.body.id;
    await fixture.server.admin('POST', '/workspaces', { slug: 'elsewhere' });
    const other = await fixture.server.admin('POST', '/workspaces/elsewhere/agents', {
      name: 'Other',
      systemPrompt: 'x',
    });
    otherAgentId = other.body.id;
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  it('the stored prompt wins over an inline one, and modelId is optional', async () => {
    fixture.fake.reset();
    const { frames } = await fixture.runToEnd({
      agentId,
      systemPrompt: 'IGNORED inline prompt',
      prompt: 'hi',
    });
    assert.equal(types(frames).at(-1), 'result');
    const sent = fixture.fake.requests[0]?.body as { messages: Array<{ role: string; content: unknown }> };
    const system = sent.messages.find((message) => message.role === 'system');
    assert.equal(system?.content, 'You are the stored support agent.');
  });

  it("without a reasoningLevel the agent's configured level applies", async () => {
    const { frames } = await fixture.runToEnd({ agentId, prompt: 'hi' });
    assert.equal(frames.at(-1)?.data.data.model.reasoningEffort, 'high');
  });

  it('a run needs agentId, a systemPrompt or a non-empty system message', async () => {
    const response = await fixture.createRun({ prompt: 'hi' });
    assert.equal(response.status, 400);
    assert.equal(response.body.error, 'invalid_request');
    const withSystemMessage = await fixture.createRun({
      messages: [
        { role: 'system', content: 'from a system message' },
        { role: 'user', content: 'hi' },
      ],
    });
    assert.equal(withSystemMessage.status, 202);
  });

  it('a malformed agentId is 400', async () => {
    const response = await fixture.createRun({ agentId: 'not-an-agent-id', prompt: 'hi' });
    assert.equal(response.status, 400);
    assert.equal(response.body.error, 'invalid_request');
  });

  it('an unknown or cross-workspace agentId is 403 forbidden', async () => {
    for (const id of ['agt_01jzzzzzzzzzzzzzzzzzzzzzzz', otherAgentId]) {
      const response = await fixture.createRun({ agentId: id, prompt: 'hi' });
      assert.equal(response.status, 403, id);
      assert.equal(response.body.error, 'forbidden');
    }
  });

  it('an empty allowlist may run every non-system agent, but not a system agent', async () => {
    const system = await fixture.createRun({ agentId: systemAgentId, prompt: 'hi' });
    assert.equal(system.status, 403);
    assert.equal(system.body.error, 'forbidden');
  });

  it('a non-empty allowlist allows exactly its agents (system ones included) and no ephemeral run', async () => {
    const restricted = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/api-keys`, {
      agentIds: [systemAgentId],
    });
    const headers = bearer(restricted.body.key);
    const allowed = await fixture.createRun({ agentId: systemAgentId, prompt: 'hi' }, headers);
    assert.equal(allowed.status, 202);
    const notListed = await fixture.createRun({ agentId, prompt: 'hi' }, headers);
    assert.equal(notListed.status, 403);
    const ephemeral = await fixture.createRun({ systemPrompt: 's', prompt: 'hi' }, headers);
    assert.equal(ephemeral.status, 403);
    assert.equal(ephemeral.body.error, 'forbidden');
  });

  it('an unresolvable modelId is 400 invalid_model', async () => {
    const response = await fixture.createRun({ systemPrompt: 's', prompt: 'hi', modelId: 'nope/nothing' });
    assert.equal(response.status, 400);
    assert.equal(response.body.error, 'invalid_model');
  });

  it('a run the queue cannot take now is accepted and kept for it: a 202 is never ended with queue_error', async () => {
    await fixture.server.service.queue.close();
    // Created apart from the fixture's runs: with the queue closed, the cleanup could not end it.
    const created = await fixture.server.request('POST', `${fixture.ws}/agent-runs`, {
      headers: fixture.headers,
      body: { systemPrompt: 's', prompt: 'hi' },
    });
    assert.equal(created.status, 202);
    const runId = created.body.runId as string;
    const snapshot = await fixture.server.request('GET', `${fixture.ws}/agent-runs/${runId}`, {
      headers: fixture.headers,
    });
    assert.equal(snapshot.body.status, 'queued');
    assert.equal(snapshot.body.endedAt, null);
    const { repos } = fixture.server.service.resources;
    assert.equal(await repos.runEvents.lastSeq(runId), 0, 'no terminal event was written');
    const admitted = await repos.dispatch.admitted(1000);
    assert.ok(
      admitted.some((run) => run.runId === runId),
      'the run stays admitted: the lost-run sweep (or the next start) queues it',
    );
  });
});
