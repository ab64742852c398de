import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertPlainHelloWorldRun, startRunFixture, textOf, types } from '../support/run-fixture.ts';
import { readAll } from '../support/sse-client.ts';

const HELLO_WORLD = {
  text: ['Hello', ', world.'],
  usage: { inputTokens: 100, cachedTokens: 60, outputTokens: 20, reasoningTokens: 5 },
};

// The rest of the suite runs with the default (model threads on a machine with more than one core);
// these pin both settings, so each path is covered wherever the suite runs.
describe('AGENT_RUNS_MODEL_THREADS: where model calls run does not change what a client sees', () => {
  for (const threads of ['0', '2']) {
    it(`with AGENT_RUNS_MODEL_THREADS=${threads} a run streams its deltas, assistant_message and result with usage`, async () => {
      const fixture = await startRunFixture('openai-chat', {
        env: { AGENT_RUNS_MODEL_THREADS: threads },
        script: [HELLO_WORLD],
      });
      try {
        const { frames } = await fixture.runToEnd({ systemPrompt: 'You are terse.', prompt: 'hi' });
        assertPlainHelloWorldRun(frames, 'fake-model');
      } finally {
        await fixture.close();
      }
    });
  }
});

/**
 * Filling the thread's heap streams some hundred megabytes of thoughts through the fake: seconds on
 * a quiet machine, more than the usual 30 s cap when the other shards share a busy one.
 */
const HEAP_FILL_CAP_MS = 180_000;

describe('a model thread that stops during a call', () => {
  it('ends that run like a broken-off stream: the partial assistant_message, then one retryable worker_error with partialText, the invocation counted; the next run gets a new thread', async () => {
    // After its text the reply thinks without end (thoughts are not streamed: reasoning is off),
    // filling the thread's capped heap.
    const endlessThoughts = Array.from({ length: 4000 }, () => 'x'.repeat(64 * 1024));
    const fixture = await startRunFixture('openai-chat', {
      env: { AGENT_RUNS_MODEL_THREADS: '1' },
      modelThreadResourceLimits: { maxOldGenerationSizeMb: 64 },
      script: [
        { text: ['Partial', ' answer'], thinking: endlessThoughts, thinkingAfterText: true },
        HELLO_WORLD,
      ],
    });
    try {
      const created = await fixture.createRun({ systemPrompt: 'You are terse.', prompt: 'think' });
      assert.equal(created.status, 202);
      const stoppedRunId = created.body.runId as string;
      const stopped = {
        runId: stoppedRunId,
        frames: await readAll(fixture.streamUrl(stoppedRunId), fixture.headers, HEAP_FILL_CAP_MS),
      };
      assert.deepEqual(types(stopped.frames), [
        'assistant_delta',
        'assistant_delta',
        'assistant_message',
        'error',
      ]);
      assert.equal(textOf(stopped.frames), 'Partial answer');
      assert.deepEqual(stopped.frames[2]?.data.data, { text: 'Partial answer', turn: 0, finishReason: null });
      const error = stopped.frames[3]?.data.data ?? {};
      assert.equal(error.code, 'worker_error');
      assert.equal(error.error, 'the worker failed while running the agent');
      assert.equal(error.retryable, true);
      assert.equal(error.partialText, 'Partial answer');
      assert.equal(error.finishReason, null);
      assert.equal(error.turns, 1, 'the broken-off invocation counts');
      const snapshot = await fixture.server.request('GET', `${fixture.ws}/agent-runs/${stopped.runId}`, {
        headers: fixture.headers,
      });
      assert.equal(snapshot.body.status, 'failed');
      assert.equal(snapshot.body.finalText, 'Partial answer');
      assert.equal(fixture.fake.requests.length, 1, 'the stopped call is not retried');

      const next = await fixture.runToEnd({ systemPrompt: 'You are terse.', prompt: 'hi' });
      assertPlainHelloWorldRun(next.frames, 'fake-model');
      assert.equal(fixture.fake.requests.length, 2);
    } finally {
      await fixture.close();
    }
  });
});
