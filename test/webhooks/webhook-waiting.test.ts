import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/waits.ts';
import { startWebhookFixture, type WebhookFixture } from './webhook-fixture.ts';

const LOOKUP_TOOL = {
  kind: 'local',
  name: 'lookup',
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
};

describe('run.waiting (extensions §7): once per waiting period for a client tool result', () => {
  let hooks: WebhookFixture;
  before(async () => {
    hooks = await startWebhookFixture();
  });
  after(() => hooks.close());

  /** Answers the run's one pending client tool call once it is there. */
  async function answerPendingCall(runId: string): Promise<void> {
    let toolUseId: string | undefined;
    await eventually(async () => {
      const snapshot = await hooks.api('GET', `/agent-runs/${runId}`);
      toolUseId = snapshot.body.pendingToolCalls?.[0]?.toolUseId;
      return toolUseId !== undefined;
    }, 'the run has a pending client tool call');
    const answered = await hooks.api('POST', `/agent-runs/${runId}/tool-results`, {
      toolUseId,
      result: 'found',
    });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
  }

  it('two rounds of client tool calls are two run.waiting deliveries (status waiting), then run.succeeded; an endpoint of the default events gets only the run.succeeded', async () => {
    await hooks.endpoint('/every', {
      events: ['run.waiting', 'run.succeeded', 'run.failed', 'run.cancelled'],
    });
    const terminalOnly = await hooks.endpoint('/terminal');
    hooks.runs.fake.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'lookup', input: { q: 'a' } }] },
      { toolCalls: [{ id: 'call_2', name: 'lookup', input: { q: 'b' } }] },
      { text: ['Found ', 'both.'] },
    );
    const created = await hooks.runs.createRun({ systemPrompt: 's', prompt: 'find', tools: [LOOKUP_TOOL] });
    assert.equal(created.status, 202);
    const runId = created.body.runId as string;

    const [firstWait] = await hooks.receiver.waitFor('/every', 1);
    assert.equal(firstWait?.verified.type, 'run.waiting');
    assert.equal(firstWait?.verified.data.runId, runId);
    assert.equal(firstWait?.verified.data.status, 'waiting');
    assert.equal(firstWait?.verified.data.text, null);
    assert.equal(firstWait?.verified.data.tokens, null);
    await answerPendingCall(runId);

    const second = await hooks.receiver.waitFor('/every', 2);
    assert.equal(second[1]?.verified.type, 'run.waiting');
    await answerPendingCall(runId);

    const all = await hooks.receiver.waitFor('/every', 3);
    assert.deepEqual(
      all.map((attempt) => attempt.verified.type),
      ['run.waiting', 'run.waiting', 'run.succeeded'],
    );
    assert.equal(new Set(all.map((attempt) => attempt.headers['webhook-id'])).size, 3);
    assert.equal(all[2]?.verified.data.text, 'Found both.');
    const [terminal] = await hooks.deliveriesSettled(terminalOnly, 1, 'succeeded');
    assert.equal(terminal?.event, 'run.succeeded');
  });
});
