import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { postToolResult, snapshotOf, WEATHER_TOOL } from '../tools/tool-support.ts';
import { ids, runsListHelpers, scriptByPrompt, tag } from './runs-list-support.ts';

describe('status waiting: a run awaiting a client tool result (extensions §4)', { timeout: 180_000 }, () => {
  let fixture: RunFixture;
  before(async () => {
    fixture = await startRunFixture('anthropic-messages');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  const { list, run, statusOf } = runsListHelpers(() => fixture);

  it('a run waiting for a client tool result is waiting on the list and its snapshot, then running or succeeded once answered', async () => {
    scriptByPrompt(fixture);
    const t = tag();
    const runId = await run({ prompt: 'please-call-tool', tools: [WEATHER_TOOL], metadata: { suite: t } });
    const watch = await fixture.watchRun(runId);
    await watch.waitForType('local_tool_call');
    // The status is written with the pending call, before the event is visible: no wait needed.
    const snapshot = await snapshotOf(fixture, runId);
    assert.equal(snapshot.body.status, 'waiting');
    assert.deepEqual(
      snapshot.body.pendingToolCalls.map((call: { toolUseId: string }) => call.toolUseId),
      ['toolu_w'],
    );
    assert.deepEqual(ids((await list(`?metadata=suite:${t}&status=waiting`)).body), [runId]);
    assert.equal((await postToolResult(fixture, runId, { toolUseId: 'toolu_w', result: '21C' })).status, 200);
    assert.ok(['running', 'succeeded'].includes(await statusOf(runId)), 'no longer waiting once answered');
    assert.deepEqual(ids((await list(`?metadata=suite:${t}&status=waiting`)).body), []);
    await watch.ended;
    assert.equal(await statusOf(runId), 'succeeded');
  });

  it('a waiting run stays waiting through a cancel until its call is answered; one whose wait expires fails', async () => {
    scriptByPrompt(fixture);
    const cancelledRun = await run({ prompt: 'please-call-tool', tools: [WEATHER_TOOL] });
    const watch = await fixture.watchRun(cancelledRun);
    await watch.waitForType('local_tool_call');
    await fixture.server.request('POST', `${fixture.ws}/agent-runs/${cancelledRun}/cancel`, {
      headers: fixture.headers,
    });
    const afterCancel = await snapshotOf(fixture, cancelledRun);
    assert.equal(afterCancel.body.status, 'waiting', 'pending calls are fulfilled before the final event');
    assert.equal(afterCancel.body.cancelRequested, true);
    await postToolResult(fixture, cancelledRun, { toolUseId: 'toolu_w', result: 'late' });
    await watch.ended;
    assert.equal(await statusOf(cancelledRun), 'cancelled');

    const expiring = await run({
      prompt: 'please-call-tool',
      tools: [WEATHER_TOOL],
      localToolTimeoutMs: 1000,
    });
    const expiringWatch = await fixture.watchRun(expiring);
    await expiringWatch.waitForType('local_tool_call');
    assert.equal(await statusOf(expiring), 'waiting');
    await expiringWatch.ended;
    assert.equal(await statusOf(expiring), 'failed');
  });
});
