/**
 * Busy sessions (extensions §6, "double-texting"): a message to a session whose run has not ended
 * takes `ifBusy` (`reject`, `enqueue`, `interrupt`, `rollback`). Over HTTP and SSE, embedded and
 * scale-out (API and worker processes on PostgreSQL + Redis).
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { EVENTS_THROUGH_FIRST_TEXT } from '../fakes/fake-anthropic.ts';
import type { SseFrame } from '../support/sse-client.ts';
import { deferred } from '../support/waits.ts';
import { startSessionFixture, terminalOf, transcript, type SessionFixture } from './session-support.ts';

type ReplayFrame = { seq: number; type: string; text: string };

const lookupTool = {
  kind: 'local',
  name: 'lookup_order',
  description: 'Order status by id.',
  parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
};

const terminalCount = (frames: readonly SseFrame[]) =>
  frames.filter((frame) => ['result', 'error', 'cancelled'].includes(frame.data.type)).length;

describe('busy sessions: ifBusy', () => {
  let fixture: SessionFixture;
  before(async () => {
    fixture = await startSessionFixture('anthropic-messages');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  const replayLines = async (sessionId: string) => {
    const replay = await fixture.replay(sessionId);
    assert.equal(replay.status, 200);
    return (replay.body.events as ReplayFrame[]).map((event) => `${event.type}: ${event.text}`);
  };
  const statusOf = async (runId: string) => (await fixture.runSnapshot(runId)).body.status as string;

  it('enqueue: the run is queued, starts after the run in flight ends, and its history includes what that run appended', async () => {
    const gate = deferred();
    fixture.fake.enqueue({ text: ['reply A'], holdUntil: gate.promise }, { text: ['reply B'] });
    const sessionId = await fixture.newSession();
    const first = await fixture.startMessage(sessionId, { prompt: 'A' });
    await fixture.fake.waitForRequests(1);
    const queued = await fixture.postMessage(sessionId, { prompt: 'B', ifBusy: 'enqueue' });
    assert.equal(queued.status, 202);
    assert.equal(typeof queued.body.runId, 'string');
    assert.equal(queued.body.streamUrl, `${fixture.ws}/agent-runs/${queued.body.runId}/stream`);
    assert.equal(await statusOf(queued.body.runId), 'queued');
    const second = await fixture.watchRun(queued.body.runId);
    gate.resolve();
    assert.equal(terminalOf(await first.ended)?.type, 'result');
    assert.equal(terminalOf(await second.ended)?.type, 'result');
    assert.equal(fixture.fake.requests.length, 2);
    assert.deepEqual(transcript(fixture.fake.requests[1]), ['user: A', 'assistant: reply A', 'user: B']);
    assert.deepEqual(await replayLines(sessionId), [
      'user_message: A',
      'assistant_message: reply A',
      'user_message: B',
      'assistant_message: reply B',
    ]);
  });

  it('enqueue: several queued runs start in the order they were accepted, each after the one before ended', async () => {
    const gate = deferred();
    fixture.fake.enqueue(
      { text: ['reply 0'], holdUntil: gate.promise },
      { text: ['reply 1'] },
      { text: ['reply 2'] },
      { text: ['reply 3'] },
    );
    const sessionId = await fixture.newSession();
    const first = await fixture.startMessage(sessionId, { prompt: 'm0' });
    await fixture.fake.waitForRequests(1);
    const watches = [first];
    for (const index of [1, 2, 3]) {
      watches.push(await fixture.startMessage(sessionId, { prompt: `m${index}`, ifBusy: 'enqueue' }));
    }
    for (const watch of watches.slice(1)) assert.equal(await statusOf(watch.runId), 'queued');
    gate.resolve();
    for (const watch of watches) assert.equal(terminalOf(await watch.ended)?.type, 'result');
    assert.deepEqual(transcript(fixture.fake.requests[3]), [
      'user: m0',
      'assistant: reply 0',
      'user: m1',
      'assistant: reply 1',
      'user: m2',
      'assistant: reply 2',
      'user: m3',
    ]);
    assert.equal((await fixture.replay(sessionId)).body.total, 8);
  });

  it('enqueue on a session that is not busy starts the run at once', async () => {
    fixture.fake.enqueue({ text: ['at once'] });
    const sessionId = await fixture.newSession();
    const { frames } = await fixture.sendMessage(sessionId, { prompt: 'hi', ifBusy: 'enqueue' });
    assert.equal(terminalOf(frames)?.type, 'result');
    assert.deepEqual(await replayLines(sessionId), ['user_message: hi', 'assistant_message: at once']);
  });

  it('reject (the default, and explicit): 409 session_busy while a run is in flight', async () => {
    const gate = deferred();
    fixture.fake.enqueue({ text: ['slow'], holdUntil: gate.promise });
    const sessionId = await fixture.newSession();
    const first = await fixture.startMessage(sessionId, { prompt: 'A' });
    for (const body of [{ prompt: 'B' }, { prompt: 'B', ifBusy: 'reject' }]) {
      const refused = await fixture.postMessage(sessionId, body);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.error, 'session_busy');
      assert.equal(typeof refused.body.message, 'string');
    }
    gate.resolve();
    assert.equal(terminalOf(await first.ended)?.type, 'result');
  });

  it('any other ifBusy value is 400 invalid_request, busy or not, and creates no run', async () => {
    const sessionId = await fixture.newSession();
    for (const ifBusy of ['queue', '', 'ENQUEUE', 1, null, true]) {
      const refused = await fixture.postMessage(sessionId, { prompt: 'x', ifBusy });
      assert.equal(refused.status, 400, `ifBusy ${JSON.stringify(ifBusy)}`);
      assert.equal(refused.body.error, 'invalid_request');
      assert.match(refused.body.message, /ifBusy/);
    }
    assert.equal(fixture.fake.requests.length, 0);
    assert.equal((await fixture.getSession(sessionId)).body.activeRunId, null);
  });

  it('cancelling a queued run ends it cancelled without executing it; the runs behind it go on', async () => {
    const gate = deferred();
    fixture.fake.enqueue({ text: ['reply A'], holdUntil: gate.promise }, { text: ['reply C'] });
    const sessionId = await fixture.newSession();
    const first = await fixture.startMessage(sessionId, { prompt: 'A' });
    await fixture.fake.waitForRequests(1);
    const second = await fixture.startMessage(sessionId, { prompt: 'B', ifBusy: 'enqueue' });
    const third = await fixture.startMessage(sessionId, { prompt: 'C', ifBusy: 'enqueue' });
    assert.equal((await fixture.cancelRun(second.runId)).status, 200);
    const cancelled = await second.ended;
    assert.deepEqual(
      cancelled.map((frame) => frame.data.type),
      ['cancelled'],
      'the queued run executed nothing',
    );
    assert.equal(await statusOf(second.runId), 'cancelled');
    assert.equal(await statusOf(third.runId), 'queued');
    gate.resolve();
    assert.equal(terminalOf(await first.ended)?.type, 'result');
    assert.equal(terminalOf(await third.ended)?.type, 'result');
    assert.equal(fixture.fake.requests.length, 2, 'the cancelled run never reached the provider');
    assert.deepEqual(transcript(fixture.fake.requests[1]), ['user: A', 'assistant: reply A', 'user: C']);
    assert.deepEqual(await replayLines(sessionId), [
      'user_message: A',
      'assistant_message: reply A',
      'user_message: C',
      'assistant_message: reply C',
    ]);
  });

  it('ending the session cancels the run in flight and every queued run (they never execute)', async () => {
    const gate = deferred();
    fixture.fake.enqueue({ text: ['reply A'], holdUntil: gate.promise });
    const sessionId = await fixture.newSession();
    const first = await fixture.startMessage(sessionId, { prompt: 'A' });
    await fixture.fake.waitForRequests(1);
    const queued = [
      await fixture.startMessage(sessionId, { prompt: 'B', ifBusy: 'enqueue' }),
      await fixture.startMessage(sessionId, { prompt: 'C', ifBusy: 'enqueue' }),
    ];
    const ended = await fixture.endSession(sessionId);
    assert.equal(ended.status, 200);
    assert.equal(ended.body.status, 'ended');
    gate.resolve();
    assert.equal(terminalOf(await first.ended)?.type, 'cancelled');
    for (const watch of queued) {
      assert.deepEqual(
        (await watch.ended).map((frame) => frame.data.type),
        ['cancelled'],
      );
      assert.equal(await statusOf(watch.runId), 'cancelled');
    }
    assert.equal(fixture.fake.requests.length, 1);
    const late = await fixture.postMessage(sessionId, { prompt: 'D', ifBusy: 'enqueue' });
    assert.equal(late.status, 409);
    assert.equal(late.body.error, 'session_ended');
  });

  /**
   * Message A: one completed turn ('Checking the order.', a client tool call, answered), then a
   * second turn cut while streaming ('It has' sent, the rest held). Returns the run's watch once
   * that partial text reached the client (the rest is held by `scriptCutRun`).
   */
  async function runCutMidTurn(sessionId: string) {
    const run = await fixture.startMessage(sessionId, { prompt: 'Where is order A-1?' });
    await run.waitForType('local_tool_call');
    const answered = await fixture.postToolResult(run.runId, { toolUseId: 'toolu_i1', result: 'shipped' });
    assert.equal(answered.status, 200);
    await run.waitFor(
      (frame) => frame.data.type === 'assistant_delta' && frame.data.data.text === 'It has',
      'the second turn streaming',
    );
    return run;
  }

  const scriptCutRun = (held: Promise<unknown>, nextReply: string) =>
    fixture.fake.enqueue(
      {
        text: ['Checking the order.'],
        toolCalls: [{ id: 'toolu_i1', name: 'lookup_order', input: { id: 'A-1' } }],
      },
      {
        text: ['It has', ' shipped', ' by air.'],
        holdAfterChunks: EVENTS_THROUGH_FIRST_TEXT,
        holdUntil: held,
      },
      { text: [nextReply] },
    );

  it('interrupt: the run in flight ends cancelled (one terminal event, its stream ends), its completed turns stay, the turn it was streaming does not; then the new run starts', async () => {
    const held = deferred();
    scriptCutRun(held.promise, 'By DHL.');
    const sessionId = await fixture.newSession({ systemPrompt: 's', tools: [lookupTool] });
    const first = await runCutMidTurn(sessionId);
    const second = await fixture.startMessage(sessionId, { prompt: 'Which carrier?', ifBusy: 'interrupt' });
    try {
      const frames = await first.ended;
      assert.equal(terminalOf(frames)?.type, 'cancelled');
      assert.equal(terminalCount(frames), 1);
      assert.equal(await statusOf(first.runId), 'cancelled');
      assert.equal(terminalOf(await second.ended)?.type, 'result');
    } finally {
      held.resolve();
    }
    assert.equal(fixture.fake.requests.length, 3);
    assert.deepEqual(transcript(fixture.fake.requests[2]), [
      'user: Where is order A-1?',
      'assistant: Checking the order.',
      'user: Which carrier?',
    ]);
    assert.deepEqual(await replayLines(sessionId), [
      'user_message: Where is order A-1?',
      'assistant_message: Checking the order.',
      'user_message: Which carrier?',
      'assistant_message: By DHL.',
    ]);
  });

  it('rollback: the run in flight ends cancelled and everything it appended (its user message and turns) is gone; then the new run starts', async () => {
    fixture.fake.enqueue({ text: ['first reply'] });
    const sessionId = await fixture.newSession({ systemPrompt: 's', tools: [lookupTool] });
    await fixture.sendMessage(sessionId, { prompt: 'Hello' });
    const held = deferred();
    scriptCutRun(held.promise, 'Fresh answer.');
    const first = await runCutMidTurn(sessionId);
    const second = await fixture.startMessage(sessionId, { prompt: 'Start over', ifBusy: 'rollback' });
    try {
      const frames = await first.ended;
      assert.equal(terminalOf(frames)?.type, 'cancelled');
      assert.equal(terminalCount(frames), 1);
      assert.equal(terminalOf(await second.ended)?.type, 'result');
    } finally {
      held.resolve();
    }
    assert.deepEqual(transcript(fixture.fake.requests.at(-1)), [
      'user: Hello',
      'assistant: first reply',
      'user: Start over',
    ]);
    assert.deepEqual(await replayLines(sessionId), [
      'user_message: Hello',
      'assistant_message: first reply',
      'user_message: Start over',
      'assistant_message: Fresh answer.',
    ]);
    const replay = await fixture.replay(sessionId);
    assert.deepEqual(
      (replay.body.events as ReplayFrame[]).map((event) => event.seq),
      [0, 1, 2, 3],
      'seq stays gapless',
    );
  });

  for (const ifBusy of ['interrupt', 'rollback'] as const) {
    it(`${ifBusy}: the runs queued before it end cancelled without executing, and the new run starts next`, async () => {
      const held = deferred();
      fixture.fake.enqueue(
        { text: ['never finished'], holdAfterChunks: EVENTS_THROUGH_FIRST_TEXT, holdUntil: held.promise },
        { text: ['the new run'] },
        { text: ['queued after it'] },
      );
      const sessionId = await fixture.newSession();
      const first = await fixture.startMessage(sessionId, { prompt: 'A' });
      await first.waitForType('assistant_delta');
      const queued = await fixture.startMessage(sessionId, { prompt: 'B', ifBusy: 'enqueue' });
      const preempting = await fixture.startMessage(sessionId, { prompt: 'C', ifBusy });
      const after = await fixture.startMessage(sessionId, { prompt: 'D', ifBusy: 'enqueue' });
      try {
        assert.equal(terminalOf(await first.ended)?.type, 'cancelled');
        assert.deepEqual(
          (await queued.ended).map((frame) => frame.data.type),
          ['cancelled'],
        );
        assert.equal(terminalOf(await preempting.ended)?.type, 'result');
        assert.equal(terminalOf(await after.ended)?.type, 'result');
      } finally {
        held.resolve();
      }
      assert.equal(fixture.fake.requests.length, 3, 'the cancelled queued run never reached the provider');
      const kept = ifBusy === 'interrupt' ? ['user_message: A'] : [];
      assert.deepEqual(await replayLines(sessionId), [
        ...kept,
        'user_message: C',
        'assistant_message: the new run',
        'user_message: D',
        'assistant_message: queued after it',
      ]);
    });
  }

  it('interrupt or rollback on a session that is not busy starts the run at once and removes nothing', async () => {
    fixture.fake.enqueue({ text: ['one'] }, { text: ['two'] }, { text: ['three'] });
    const sessionId = await fixture.newSession();
    await fixture.sendMessage(sessionId, { prompt: 'first' });
    await fixture.sendMessage(sessionId, { prompt: 'second', ifBusy: 'interrupt' });
    await fixture.sendMessage(sessionId, { prompt: 'third', ifBusy: 'rollback' });
    assert.equal((await fixture.replay(sessionId)).body.total, 6);
  });
});
