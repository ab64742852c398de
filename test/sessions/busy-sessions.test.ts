/**
 * Busy sessions (extensions §6, "double-texting"): a message to a session whose run has not ended
 * takes `ifBusy` (`reject`, `enqueue`, `interrupt`, `rollback`). Over HTTP and SSE, embedded and
 * scale-out (API and worker processes on PostgreSQL + Redis).
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { deferred } from '../support/waits.ts';
import { startSessionFixture, terminalOf, transcript, type SessionFixture } from './session-support.ts';

type ReplayFrame = { seq: number; type: string; text: string };

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
});
