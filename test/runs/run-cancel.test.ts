import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openSse, readAll, type SseFrame } from '../support/sse-client.ts';
import { startRunFixture, types, type RunFixture } from '../support/run-fixture.ts';

describe('cancellation', () => {
  let fixture: RunFixture;
  before(async () => {
    fixture = await startRunFixture('openai-chat');
  });
  after(() => fixture.close());

  const cancel = (runId: string) =>
    fixture.server.request('POST', `${fixture.ws}/agent-runs/${runId}/cancel`, { headers: fixture.headers });

  it('cancel mid-reply aborts the provider call and ends the run with exactly one cancelled event', async () => {
    fixture.fake.reset();
    fixture.fake.enqueue({ text: Array.from({ length: 200 }, () => 'x'), chunkIntervalMs: 20 });
    const created = await fixture.createRun({ systemPrompt: 's', prompt: 'long' });
    const stream = await openSse(fixture.streamUrl(created.body.runId), fixture.headers);
    const frames: SseFrame[] = [];
    for await (const frame of stream.frames) {
      frames.push(frame);
      if (frames.length === 3) {
        const response = await cancel(created.body.runId);
        assert.equal(response.status, 200);
      }
    }
    assert.equal(types(frames).at(-1), 'cancelled');
    assert.equal(types(frames).filter((type) => ['result', 'error', 'cancelled'].includes(type)).length, 1);
    assert.ok(frames.length < 100, 'the reply stopped early');
    await fixture.fake.waitForRequests(1);
    const deadline = Date.now() + 2000;
    while (!fixture.fake.requests[0]?.closedByClient && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    assert.equal(fixture.fake.requests[0]?.closedByClient, true, 'the in-flight provider call was aborted');
    const snapshot = await fixture.server.request('GET', `${fixture.ws}/agent-runs/${created.body.runId}`, {
      headers: fixture.headers,
    });
    assert.equal(snapshot.body.status, 'cancelled');
    assert.equal(snapshot.body.turns, 0);
    assert.ok(snapshot.body.tokens, 'the cost triple is set once terminal');
  });

  it('cancel is idempotent, and cancelling an ended run changes nothing', async () => {
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
      fixture.fake.enqueue({ text: ['slow'], firstChunkDelayMs: 400 }, { text: ['never'] });
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
      const frames = await readAll(fixture.streamUrl(queued.body.runId), fixture.headers);
      assert.deepEqual(types(frames), ['cancelled']);
      assert.deepEqual(frames[0]?.data.data, {});
      await readAll(fixture.streamUrl(busy.body.runId), fixture.headers);
      assert.equal(fixture.fake.requests.length, 1, 'the cancelled run never reached the provider');
    } finally {
      await fixture.close();
    }
  });
});
