import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { readAll, readToEnd, type SseFrame } from '../support/sse-client.ts';
import { startRunFixture, types, type RunFixture } from '../support/run-fixture.ts';
import { EVENTS_THROUGH_FIRST_TEXT } from '../fakes/fake-openai-chat.ts';
import type { ScriptedReply, ScriptedTurn } from '../fakes/scripted-reply.ts';
import { deferred } from '../support/waits.ts';

describe('cancellation', () => {
  let fixture: RunFixture;
  before(async () => {
    // Retry-After is honoured up to maxDelayMs: the backoff test's hour is one only a cancel cuts short.
    fixture = await startRunFixture('openai-chat', {
      engine: { retryPolicy: { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 3_600_000 } },
    });
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  const cancel = (runId: string) =>
    fixture.server.request('POST', `${fixture.ws}/agent-runs/${runId}/cancel`, { headers: fixture.headers });

  const snapshotOf = async (runId: string) =>
    (await fixture.server.request('GET', `${fixture.ws}/agent-runs/${runId}`, { headers: fixture.headers }))
      .body;

  /** Starts a run on this script and returns its id once its first provider request has arrived. */
  async function runAtProvider(...script: ScriptedReply[]): Promise<string> {
    fixture.fake.reset();
    fixture.fake.enqueue(...script);
    const created = await fixture.createRun({ systemPrompt: 's', prompt: 'p' });
    await fixture.fake.waitForRequests(1);
    return created.body.runId as string;
  }

  /**
   * Creates a run on this reply, reads its stream, and cancels it once the first assistant_delta has
   * arrived; the rest of the reply waits for the cancel's answer, so the cancel lands mid-turn.
   */
  async function cancelDuringFirstTurn(
    reply: ScriptedTurn,
    body: Record<string, unknown>,
  ): Promise<{ runId: string; frames: SseFrame[] }> {
    const cancelled = deferred();
    fixture.fake.enqueue({
      ...reply,
      holdAfterChunks: EVENTS_THROUGH_FIRST_TEXT,
      holdUntil: cancelled.promise,
    });
    const created = await fixture.createRun(body);
    const runId = created.body.runId as string;
    let deltas = 0;
    const frames = await readToEnd(await fixture.openStream(runId), fixture.streamUrl(runId), {
      onFrame: async (frame) => {
        if (frame.data.type !== 'assistant_delta' || ++deltas !== 1) return;
        const response = await cancel(runId);
        assert.equal(response.status, 200);
        assert.equal(response.body.status, 'cancelling');
        cancelled.resolve();
      },
    });
    return { runId, frames };
  }

  it('cancel mid-reply: the runner stops between turns, so the turn in flight completes, then exactly one cancelled with its usage', async () => {
    fixture.fake.reset();
    const words = Array.from({ length: 20 }, (_, index) => `w${index} `);
    const { runId, frames } = await cancelDuringFirstTurn(
      { text: words, chunkIntervalMs: 20, usage: { inputTokens: 12, outputTokens: 20 } },
      { systemPrompt: 's', prompt: 'long' },
    );

    assert.deepEqual(types(frames), [
      ...words.map(() => 'assistant_delta'),
      'assistant_message',
      'cancelled',
    ]);
    assert.equal(frames.at(-2)?.data.data.text, words.join(''));
    assert.equal(fixture.fake.requests.length, 1);
    assert.equal(fixture.fake.requests[0]?.closedByClient, false, 'the provider call was not broken off');
    const cancelled = frames.at(-1)?.data.data;
    assert.equal(cancelled?.turns, 1);
    assert.deepEqual(cancelled?.tokens, {
      inputTokens: 12,
      cachedTokens: 0,
      reasoningTokens: 0,
      outputTokens: 20,
    });
    assert.equal(cancelled?.model.vendorModelId, 'fake-model');

    const snapshot = await snapshotOf(runId);
    assert.equal(snapshot.status, 'cancelled');
    assert.equal(snapshot.turns, 1, 'the invocation counts');
    assert.deepEqual(snapshot.tokens, cancelled?.tokens);
    assert.equal(snapshot.finalText, words.join(''));
  });

  it('a turn cancelled before it asks for a tool ends with its assistant_message: no local_tool_call, no further turn', async () => {
    fixture.fake.reset();
    const { frames } = await cancelDuringFirstTurn(
      {
        text: Array.from({ length: 10 }, () => 'thinking aloud '),
        chunkIntervalMs: 20,
        toolCalls: [{ id: 'call_1', name: 'lookup', input: { q: 'a' } }],
      },
      { systemPrompt: 's', prompt: 'look it up', tools: [{ kind: 'local', name: 'lookup' }] },
    );

    assert.deepEqual(types(frames).slice(-2), ['assistant_message', 'cancelled']);
    assert.deepEqual(frames.at(-2)?.data.data.toolCalls, [
      { id: 'call_1', name: 'lookup', input: { q: 'a' } },
    ]);
    assert.ok(!types(frames).includes('local_tool_call'));
    assert.equal(fixture.fake.requests.length, 1, 'no second model turn');
    assert.equal(frames.at(-1)?.data.data.turns, 1);
  });

  it('a call that has not answered when the cancel comes is abandoned at once: it has no turn to finish', async () => {
    const runId = await runAtProvider({ type: 'hang' });
    assert.equal((await cancel(runId)).status, 200);
    const frames = await readAll(fixture.streamUrl(runId), fixture.headers);
    assert.deepEqual(types(frames), ['cancelled']);
    assert.equal(frames[0]?.data.data.turns, 1, 'the abandoned invocation counts');
    await fixture.fake.waitUntil(
      () => fixture.fake.requests[0]?.closedByClient === true,
      'the provider request was closed',
    );
    assert.equal(fixture.fake.requests[0]?.closedByClient, true, 'the provider request was closed');
  });

  it('cancel during a retry backoff starts no further model call', async () => {
    const runId = await runAtProvider(
      { type: 'http-error', status: 429, headers: { 'retry-after': '3600' } },
      { text: ['never'] },
    );
    assert.equal((await cancel(runId)).status, 200);
    // The run ends at all only if the cancel cut its hour-long backoff short.
    const frames = await readAll(fixture.streamUrl(runId), fixture.headers);
    assert.deepEqual(types(frames), ['cancelled']);
    assert.equal(fixture.fake.requests.length, 1);
  });

  it('cancel takes no body: an empty body under a JSON content type is accepted; an empty run creation is 400 invalid_request', async () => {
    const runId = await runAtProvider({ type: 'hang' });
    const url = `${fixture.server.baseUrl}${fixture.ws}/agent-runs/${runId}/cancel`;
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...fixture.headers, 'content-type': 'application/json' },
    });
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(((await response.json()) as { status: string }).status, 'cancelling');
    assert.deepEqual(types(await readAll(fixture.streamUrl(runId), fixture.headers)), ['cancelled']);

    const empty = await fetch(`${fixture.server.baseUrl}${fixture.ws}/agent-runs`, {
      method: 'POST',
      headers: { ...fixture.headers, 'content-type': 'application/json' },
    });
    assert.equal(empty.status, 400);
    const body = (await empty.json()) as { error: string; message: string };
    assert.equal(body.error, 'invalid_request');
    assert.match(body.message, /./);
  });

  it('cancel is idempotent, and cancelling an ended run changes nothing', async () => {
    fixture.fake.reset();
    const { runId, frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'quick' });
    assert.equal(types(frames).at(-1), 'result');
    const first = await cancel(runId);
    const second = await cancel(runId);
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(first.body.status, 'succeeded');
    const replay = await readAll(fixture.streamUrl(runId), fixture.headers);
    assert.equal(types(replay).at(-1), 'result');
  });
});

describe('cancellation of a queued run', () => {
  it('a run cancelled while still queued ends cancelled without any model call', async () => {
    const fixture = await startRunFixture('openai-chat', { env: { AGENT_RUNS_WORKER_CONCURRENCY: '1' } });
    try {
      // The busy run holds the only slot until the queued run's cancel is in.
      const releaseBusy = deferred();
      fixture.fake.enqueue({ text: ['slow'], holdUntil: releaseBusy.promise }, { text: ['never'] });
      const busy = await fixture.createRun({ systemPrompt: 's', prompt: 'occupy the only worker slot' });
      await fixture.fake.waitForRequests(1);
      const queued = await fixture.createRun({ systemPrompt: 's', prompt: 'wait in the queue' });
      const cancelled = await fixture.server.request(
        'POST',
        `${fixture.ws}/agent-runs/${queued.body.runId}/cancel`,
        {
          headers: fixture.headers,
        },
      );
      assert.equal(cancelled.body.status, 'cancelling');
      releaseBusy.resolve();
      const frames = await readAll(fixture.streamUrl(queued.body.runId), fixture.headers);
      assert.deepEqual(types(frames), ['cancelled']);
      const { tokens, turns, model } = frames[0]?.data.data ?? {};
      assert.deepEqual(
        { tokens, turns },
        { tokens: { inputTokens: 0, cachedTokens: 0, reasoningTokens: 0, outputTokens: 0 }, turns: 0 },
      );
      assert.equal(model.vendorModelId, 'fake-model');
      assert.equal('reasoningEffort' in model, false, 'no level asked for: reasoningEffort omitted');
      await readAll(fixture.streamUrl(busy.body.runId), fixture.headers);
      assert.equal(fixture.fake.requests.length, 1, 'the cancelled run never reached the provider');
    } finally {
      await fixture.close();
    }
  });
});
