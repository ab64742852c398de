import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { createAgent, endpointPath, sendBody } from '../a2a/a2a-support.ts';
import { answerCall, LOOKUP, startMetricsFixture, type MetricsFixture } from '../support/metrics-fixture.ts';
import { sample } from '../support/prometheus-scrape.ts';
import type { RunFixture } from '../support/run-fixture.ts';
import { readAll } from '../support/sse-client.ts';
import { deferred, eventually } from '../support/waits.ts';

describe('Prometheus metrics: open SSE streams (extensions §2)', { timeout: 120_000 }, () => {
  let metrics: MetricsFixture;
  let fixture: RunFixture;
  before(async () => {
    metrics = await startMetricsFixture();
    fixture = metrics.fixture;
  });
  after(() => metrics?.close());
  afterEach(() => fixture.cleanUp());

  it('agent_runs_sse_streams_open counts each run stream while it is open: down by one when a client leaves, back when the run ends', async () => {
    const open = async () => sample(await metrics.scrapeApi(), 'agent_runs_sse_streams_open');
    const base = await open();
    fixture.fake.enqueue({ toolCalls: [{ id: 'call_s', name: 'lookup', input: {} }] }, { text: ['Done.'] });
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'look it up', tools: [LOOKUP] });
    const call = await run.waitForType('local_tool_call');
    const second = await fixture.openStream(run.runId);
    assert.equal(second.status, 200);
    await eventually(async () => (await open()) === base + 2, 'two streams of the run are open');
    second.close();
    await eventually(async () => (await open()) === base + 1, 'the stream whose client left is not counted');
    await answerCall(fixture, run.runId, { toolUseId: call.data.data.toolUseId, result: 'found' });
    assert.equal((await run.ended).at(-1)?.data.type, 'result');
    await eventually(
      async () => (await open()) === base,
      'the stream that ended with its run is not counted',
    );
  });

  it('agent_runs_sse_streams_open counts a hosted A2A message/stream answer while it is open, whether it ends or its client leaves', async () => {
    await createAgent(fixture.server, fixture.slug, { name: 'Streamer', systemPrompt: 's' });
    const open = async () => sample(await metrics.scrapeApi(), 'agent_runs_sse_streams_open');
    const base = await open();
    /** A message/stream answer read up to its first frame (the task), with the run behind it and its reader. */
    const startStream = async (text: string) => {
      const response = await fetch(`${fixture.server.baseUrl}${endpointPath(fixture.slug, 'streamer')}`, {
        method: 'POST',
        headers: { ...fixture.headers, 'content-type': 'application/json' },
        body: JSON.stringify(sendBody(text, { method: 'message/stream' })),
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.ok(response.body);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let received = '';
      while (!received.includes('\n\n')) {
        const chunk = await reader.read();
        assert.ok(!chunk.done, `the stream ended before its first frame: ${received}`);
        received += decoder.decode(chunk.value, { stream: true });
      }
      const task = JSON.parse(/^data: (.*)$/m.exec(received)?.[1] ?? '{}') as {
        result?: { kind?: string; metadata?: { svc?: { runId?: string } } };
      };
      assert.equal(task.result?.kind, 'task', received);
      const runId = task.result?.metadata?.svc?.runId;
      assert.ok(runId, received);
      fixture.trackRun(runId);
      return { reader, runId };
    };
    const runEnded = async (runId: string) =>
      assert.equal((await readAll(fixture.streamUrl(runId), fixture.headers)).at(-1)?.data.type, 'result');

    const release = deferred();
    fixture.fake.enqueue({ text: ['Hel', 'lo.'], holdUntil: release.promise });
    const ending = await startStream('stream to the end');
    await eventually(async () => (await open()) === base + 1, 'the A2A stream is open');
    release.resolve();
    while (!(await ending.reader.read()).done);
    await eventually(async () => (await open()) === base, 'the ended A2A stream is not counted');
    await runEnded(ending.runId);

    const hold = deferred();
    fixture.fake.enqueue({ text: ['Hel', 'lo.'], holdUntil: hold.promise });
    const leaving = await startStream('leave early');
    await eventually(async () => (await open()) === base + 1, 'the A2A stream is open');
    await leaving.reader.cancel();
    await eventually(async () => (await open()) === base, 'the A2A stream whose client left is not counted');
    // The task goes on without its client, and its end changes nothing.
    hold.resolve();
    await runEnded(leaving.runId);
    assert.equal(await open(), base);
  });
});
