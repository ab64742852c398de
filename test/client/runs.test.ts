import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LocalToolDispatcher, type RunEvent } from '@agent-runs/client';
import { SLOW_MODEL, startClientFixture, wordsPrompt, type ClientFixture } from './client-fixture.ts';

describe('runs, models, feedback and identity: a method per public route', () => {
  let fixture: ClientFixture;
  before(async () => {
    fixture = await startClientFixture('sdk-runs');
  });
  after(() => fixture.close());

  it('models.list returns the catalog and the default model', async () => {
    const catalog = await fixture.client.models.list();
    assert.equal(catalog.defaultModelId, 'mock/echo');
    const echo = catalog.models.find((model) => model.id === 'mock/echo');
    assert.equal(echo?.provider, 'mock');
    assert.equal(echo?.vendorModelId, 'echo');
  });

  it('runs.create answers { runId, streamUrl } and runs.get the snapshot with the usage triple', async () => {
    const created = await fixture.client.runs.create({
      systemPrompt: 's',
      prompt: 'snapshot me',
      metadata: { ticket: 'T-1' },
    });
    assert.match(created.runId, /^run_/);
    assert.equal(created.streamUrl, `/api/v1/workspaces/sdk-runs/agent-runs/${created.runId}/stream`);
    for await (const _event of fixture.client.runs.stream(created.runId));
    const snapshot = await fixture.client.runs.get(created.runId);
    assert.equal(snapshot.runId, created.runId);
    assert.equal(snapshot.status, 'succeeded');
    assert.equal(snapshot.finalText, 'You said: snapshot me');
    assert.deepEqual(snapshot.metadata, { ticket: 'T-1' });
    assert.equal(snapshot.turns, 1);
    assert.equal(snapshot.model?.id, 'mock/echo');
  });

  it('runs.list pages the workspace runs newest first, filtered by metadata and status', async () => {
    const batch = `b${Date.now()}`;
    const created: string[] = [];
    for (const prompt of ['first', 'second', 'third']) {
      const { runId } = await fixture.client.runs.create({ systemPrompt: 's', prompt, metadata: { batch } });
      for await (const _event of fixture.client.runs.stream(runId));
      created.push(runId);
    }
    const first = await fixture.client.runs.list({ metadata: { batch }, status: 'succeeded', limit: 2 });
    assert.deepEqual(
      first.runs.map((entry) => entry.runId),
      [created[2], created[1]],
    );
    assert.equal(first.runs[0]?.model?.id, 'mock/echo');
    assert.ok(first.nextCursor);
    const second = await fixture.client.runs.list({
      metadata: { batch },
      limit: 2,
      cursor: first.nextCursor,
    });
    assert.deepEqual(
      second.runs.map((entry) => entry.runId),
      [created[0]],
    );
    assert.equal(second.nextCursor, null);
    const none = await fixture.client.runs.list({ metadata: { batch }, status: ['failed', 'cancelled'] });
    assert.deepEqual(none.runs, []);
  });

  it('runs.run follows the run to its result, handing every event to onEvent in seq order', async () => {
    const seen: RunEvent[] = [];
    const outcome = await fixture.client.runs.run(
      { systemPrompt: 's', prompt: 'one two three' },
      { onEvent: (event) => void seen.push(event) },
    );
    assert.equal(outcome.type, 'result');
    if (outcome.type !== 'result') return;
    assert.equal(outcome.result.text, 'You said: one two three');
    assert.equal(outcome.event, seen.at(-1));
    assert.deepEqual(
      seen.map((event) => event.seq),
      seen.map((_, index) => index + 1),
    );
    assert.ok(seen.some((event) => event.type === 'assistant_delta'));
  });

  it('runs.cancel ends a run in flight: runs.follow resolves with the cancelled outcome', async () => {
    const { runId } = await fixture.client.runs.create({
      systemPrompt: 's',
      modelId: SLOW_MODEL,
      prompt: wordsPrompt(40),
    });
    let cancelling: Promise<unknown> | undefined;
    const outcome = await fixture.client.runs.follow(runId, {
      onEvent: (event) => {
        if (event.type === 'assistant_delta') cancelling ??= fixture.client.runs.cancel(runId);
      },
    });
    assert.deepEqual(await cancelling, { runId, status: 'cancelling' });
    assert.equal(outcome.type, 'cancelled');
    assert.equal((await fixture.client.runs.get(runId)).status, 'cancelled');
  });

  it('runs.run with tools answers local_tool_call through the dispatcher, end to end', async () => {
    const tools = new LocalToolDispatcher();
    tools.local('lookup', (args) => `found ${String(args.query)}`, {
      parameters: { type: 'object', properties: { query: { type: 'string' } } },
    });
    const outcome = await fixture.client.runs.run(
      { systemPrompt: 's', prompt: 'call lookup {"query":"otters"}', tools: tools.toolRefs() },
      { tools },
    );
    assert.equal(outcome.type, 'result');
    if (outcome.type !== 'result') return;
    assert.match(outcome.result.text, /found otters/);
  });

  it('runs.feedback records a verdict (201 then update) and replyFeedback.list lists it', async () => {
    const { runId } = await fixture.client.runs.run({ systemPrompt: 's', prompt: 'rate me' });
    const first = await fixture.client.runs.feedback(runId, { verdict: 'UP' });
    assert.deepEqual(
      { ...first, id: undefined },
      {
        id: undefined,
        verdict: 'UP',
        targetKind: 'agent_run',
        agentRunId: runId,
      },
    );
    const second = await fixture.client.runs.feedback(runId, {
      verdict: 'DOWN',
      explanation: 'changed my mind',
    });
    assert.equal(second.id, first.id);
    const listed = await fixture.client.replyFeedback.list({ limit: 10 });
    const entry = listed.feedback.find((item) => item.agentRunId === runId);
    assert.equal(entry?.verdict, 'DOWN');
    assert.equal(entry?.explanation, 'changed my mind');
    assert.equal(entry?.contentSnapshot, 'You said: rate me');
  });

  it('identity.userinfo names the workspace of an API key (no person)', async () => {
    const me = await fixture.client.identity.userinfo();
    assert.equal(me.workspaceSlug, 'sdk-runs');
    assert.equal(me.sub, null);
    assert.equal(me.email, null);
  });
});
