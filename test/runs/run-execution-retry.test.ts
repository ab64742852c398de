import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { refuseEventInserts, type InsertRefusal } from '../support/refused-inserts.ts';
import { readAll } from '../support/sse-client.ts';
import { startRunFixture, textOf, type RunFixture } from '../support/run-fixture.ts';
import { deferred } from '../support/waits.ts';

describe('a run whose execution fails outside the agent', () => {
  let fixture: RunFixture;
  let refusal: InsertRefusal | undefined;
  before(async () => {
    fixture = await startRunFixture('openai-chat', {
      engine: { executionRetry: { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 400 } },
    });
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());
  beforeEach(async () => {
    // A real refusal by the database, until it is dropped: every `result` event.
    refusal = await refuseEventInserts(
      fixture.server.service.resources.storage,
      'refuse_results',
      "new.type = 'result'",
    );
  });

  const assertOneTerminalAfterContiguousSeqs = (frames: Awaited<ReturnType<typeof readAll>>) => {
    const seqs = frames.map((frame) => frame.data.seq);
    assert.deepEqual(
      seqs,
      seqs.map((_, index) => index + 1),
      `contiguous seq (${seqs.join(',')})`,
    );
    const terminals = frames.filter((frame) => ['result', 'error', 'cancelled'].includes(frame.data.type));
    assert.deepEqual(terminals, [frames.at(-1)]);
  };

  it(
    'is taken up again from its log after a backoff, and ends normally once storage answers again',
    { timeout: 15_000 },
    async () => {
      fixture.fake.reset();
      const reply = { text: ['o', 'k'], chunkIntervalMs: 20 };
      // The next try's model call waits until storage answers again, so no try is refused after it.
      const storageBack = deferred();
      fixture.fake.enqueue(reply, { ...reply, holdUntil: storageBack.promise }, reply, reply);
      const watch = await fixture.startRun({ systemPrompt: 's', prompt: 'p' });
      // The deltas are durable; the commit of the turn's end and `result` is refused, and the run
      // waits for its next try, which asks the model again.
      await watch.waitForType('assistant_delta');
      await fixture.fake.waitForRequests(2);
      assert.equal(watch.frames.at(-1)?.data.type, 'assistant_delta', 'no terminal event yet');
      await refusal?.drop();
      storageBack.resolve();
      const frames = await watch.ended;
      assertOneTerminalAfterContiguousSeqs(frames);
      const terminal = frames.at(-1)!.data;
      assert.equal(terminal.type, 'result', JSON.stringify(terminal));
      assert.equal(terminal.data.text, 'ok');
      assert.equal(textOf(frames), 'ok', 'the text streamed once: the retried turn repeats nothing');
      assert.ok(fixture.fake.requests.length >= 2, 'the next try generated the interrupted turn again');
      const replayed = await readAll(fixture.streamUrl(watch.runId), fixture.headers);
      assert.deepEqual(replayed, frames);
    },
  );

  it(
    'ends with a retryable worker_error after its last durable event when retries run out',
    { timeout: 15_000 },
    async () => {
      fixture.fake.reset();
      const { runId, frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });
      assertOneTerminalAfterContiguousSeqs(frames);
      const terminal = frames.at(-1)!.data;
      assert.equal(terminal.type, 'error');
      assert.equal(terminal.data.code, 'worker_error');
      assert.equal(terminal.data.retryable, true);
      const snapshot = await fixture.server.request('GET', `${fixture.ws}/agent-runs/${runId}`, {
        headers: fixture.headers,
      });
      assert.equal(snapshot.body.status, 'failed');
    },
  );
});
