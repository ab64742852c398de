import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { SCALE_OUT } from '../support/deployment.ts';
import {
  answerCall,
  durationsMoved,
  LOOKUP,
  startMetricsFixture,
  toolCallsMoved,
  type MetricsFixture,
} from '../support/metrics-fixture.ts';
import { moved, movedInAll } from '../support/prometheus-scrape.ts';
import type { RunFixture } from '../support/run-fixture.ts';

describe('Prometheus metrics: client tool calls (extensions §2)', { timeout: 120_000 }, () => {
  let metrics: MetricsFixture;
  let fixture: RunFixture;
  before(async () => {
    metrics = await startMetricsFixture();
    fixture = metrics.fixture;
  });
  after(() => metrics?.close());
  afterEach(() => fixture.cleanUp());

  it("a client tool call counts once by its client kind when its answer comes: ok, or error from the answer's error flag", async () => {
    const before = await metrics.scrapeEach();
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'call_l', name: 'lookup', input: {} }] },
      { toolCalls: [{ id: 'call_m', name: 'search', input: {} }] },
      { text: ['Done.'] },
    );
    const run = await fixture.startRun({
      systemPrompt: 's',
      prompt: 'look it up',
      tools: [LOOKUP, { kind: 'mcp_local', name: 'docs', tools: [{ name: 'search' }] }],
    });
    const lookup = await run.waitFor((frame) => frame.data.data.name === 'lookup', 'the lookup call');
    await answerCall(fixture, run.runId, { toolUseId: lookup.data.data.toolUseId, result: 'found' });
    const search = await run.waitFor((frame) => frame.data.data.name === 'search', 'the search call');
    assert.equal(search.data.type, 'local_tool_call');
    assert.equal(search.data.data.kind, 'mcp_local');
    await answerCall(fixture, run.runId, { toolUseId: search.data.data.toolUseId, error: 'no such page' });
    assert.equal((await run.ended).at(-1)?.data.type, 'result');
    // An answer to a call already answered is refused and counts nothing.
    const again = await fixture.server.request('POST', `${fixture.ws}/agent-runs/${run.runId}/tool-results`, {
      body: { toolUseId: search.data.data.toolUseId, result: 'again' },
      headers: fixture.headers,
    });
    assert.notEqual(again.status, 200);

    const after = await metrics.scrapeEach();
    assert.deepEqual(toolCallsMoved(before, after, 'local'), { ok: 1, error: 0, timeout: 0, cancelled: 0 });
    assert.deepEqual(toolCallsMoved(before, after, 'mcp_local'), {
      ok: 0,
      error: 1,
      timeout: 0,
      cancelled: 0,
    });
    for (const kind of ['local', 'mcp_local']) {
      assert.equal(movedInAll(before, after, 'agent_runs_tool_call_duration_seconds', { kind }), 1, kind);
    }
    // Scale-out: the answer is counted where it was stored (the API), not by the worker that resumes.
    if (SCALE_OUT) {
      assert.equal(moved(before[0]!, after[0]!, 'agent_runs_tool_calls_total', { kind: 'local' }), 1);
    }
  });

  it('a client tool call left unanswered counts as timeout when its wait times out, and as cancelled when its run was cancelled while it waited; its duration is the wait', async () => {
    const before = await metrics.scrapeEach();
    const waitingRun = async () => {
      fixture.fake.enqueue({ toolCalls: [{ id: 'call_w', name: 'lookup', input: {} }] });
      const run = await fixture.startRun({
        systemPrompt: 's',
        prompt: 'look it up',
        tools: [LOOKUP],
        localToolTimeoutMs: 1_000,
      });
      await run.waitForType('local_tool_call');
      return run;
    };
    const timedOut = await waitingRun();
    const timeout = (await timedOut.ended).at(-1)?.data;
    assert.equal(timeout?.type, 'result');
    assert.equal(timeout?.data.subtype, 'error_local_tool_timeout');
    const cancelled = await waitingRun();
    const cancel = await fixture.server.request(
      'POST',
      `${fixture.ws}/agent-runs/${cancelled.runId}/cancel`,
      {
        headers: fixture.headers,
      },
    );
    assert.equal(cancel.status, 200);
    // The cancelled run still waits for its pending call, which times out: then the run ends cancelled.
    assert.equal((await cancelled.ended).at(-1)?.data.type, 'cancelled');

    const after = await metrics.scrapeEach();
    assert.deepEqual(toolCallsMoved(before, after, 'local'), { ok: 0, error: 0, timeout: 1, cancelled: 1 });
    assert.equal(movedInAll(before, after, 'agent_runs_tool_call_duration_seconds', { kind: 'local' }), 2);
    // Each waited its second: neither is in the buckets below 1 s, and together they waited 2 s or more.
    const labels = { kind: 'local' };
    assert.equal(
      durationsMoved(before, after, 'agent_runs_tool_call_duration_seconds_bucket', { ...labels, le: '0.5' }),
      0,
    );
    assert.ok(durationsMoved(before, after, 'agent_runs_tool_call_duration_seconds_sum', labels) >= 2);
  });
});
