import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { newId } from '../../src/domain/ids.ts';
import { EVENTS_THROUGH_FIRST_TEXT } from '../fakes/fake-anthropic.ts';
import { readAll } from '../support/sse-client.ts';
import { deferred } from '../support/waits.ts';
import { startSessionFixture, eventually, terminalOf, type SessionFixture } from './session-support.ts';

describe('session lifecycle', () => {
  let fixture: SessionFixture;
  before(async () => {
    fixture = await startSessionFixture('anthropic-messages');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  it('creation: POST {ws}/agent-sessions with a valid spec answers 201 { sessionId }', async () => {
    const created = await fixture.createSession({ systemPrompt: 'You help.', metadata: { customer: 'c1' } });
    assert.equal(created.status, 201);
    assert.deepEqual(Object.keys(created.body), ['sessionId']);
    assert.match(created.body.sessionId, /^ses_[0-9a-z]{26}$/);
  });

  it('creation takes the spec without prompt: a prompt gives 400 invalid_request', async () => {
    const created = await fixture.createSession({ systemPrompt: 's', prompt: 'hello' });
    assert.equal(created.status, 400);
    assert.equal(created.body.error, 'invalid_request');
    assert.equal(typeof created.body.message, 'string');
  });

  it('creation takes the spec without messages: messages give 400 invalid_request', async () => {
    const created = await fixture.createSession({
      systemPrompt: 's',
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(created.status, 400);
    assert.equal(created.body.error, 'invalid_request');
  });

  it('creation needs a systemPrompt or an agentId (a session has no messages to carry a system message): else 400', async () => {
    const before = (await fixture.list()).body.total;
    for (const body of [{}, { systemPrompt: '   ' }, { name: 'no prompt' }]) {
      const created = await fixture.createSession(body);
      assert.equal(created.status, 400, JSON.stringify(body));
      assert.equal(created.body.error, 'invalid_request');
      assert.equal(
        created.body.message,
        'systemPrompt: required unless agentId is set (a session is created without messages)',
      );
    }
    assert.equal((await fixture.list()).body.total, before, 'no session was stored');
  });

  it('creation validates the spec like a run: an unresolvable modelId gives 400 invalid_model', async () => {
    const before = (await fixture.list()).body.total;
    const created = await fixture.createSession({ systemPrompt: 's', modelId: 'nosuchprovider/nosuchmodel' });
    assert.equal(created.status, 400);
    assert.equal(created.body.error, 'invalid_model');
    assert.equal((await fixture.list()).body.total, before, 'no session was stored');
  });

  it('creation validates metadata like a run: a bad key or a non-string value gives 400 invalid_request', async () => {
    for (const metadata of [{ 'bad key!': 'x' }, { customer: 42 }, { big: 'v'.repeat(257) }]) {
      const created = await fixture.createSession({ systemPrompt: 's', metadata });
      assert.equal(created.status, 400, JSON.stringify(metadata));
      assert.equal(created.body.error, 'invalid_request');
    }
    const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    const created = await fixture.createSession({ systemPrompt: 's', metadata: tooMany });
    assert.equal(created.status, 400);
    assert.equal(created.body.error, 'invalid_request');
  });

  it('creation checks agent access like a run: an unknown agentId gives 403 forbidden, a malformed one 400', async () => {
    const unknown = await fixture.createSession({ agentId: newId('agent') });
    assert.equal(unknown.status, 403);
    assert.equal(unknown.body.error, 'forbidden');
    const malformed = await fixture.createSession({ agentId: 'not-an-agent-id' });
    assert.equal(malformed.status, 400);
  });

  it('detail: GET {ws}/agent-sessions/{id} returns the session, active, with its metadata', async () => {
    const sessionId = await fixture.newSession({ systemPrompt: 's', metadata: { customer: 'c9' } });
    const detail = await fixture.getSession(sessionId);
    assert.equal(detail.status, 200);
    assert.equal(detail.body.sessionId, sessionId);
    assert.equal(detail.body.status, 'active');
    assert.deepEqual(detail.body.metadata, { customer: 'c9' });
    assert.ok(!Number.isNaN(Date.parse(detail.body.creationDate)));
  });

  it('an unknown session gives 404 not_found on detail, events, messages and delete', async () => {
    const missing = newId('session');
    const responses = [
      await fixture.getSession(missing),
      await fixture.replay(missing),
      await fixture.postMessage(missing, { prompt: 'hello' }),
      await fixture.endSession(missing),
    ];
    for (const response of responses) {
      assert.equal(response.status, 404);
      assert.equal(response.body.error, 'not_found');
    }
    assert.equal(fixture.fake.requests.length, 0, 'no run reached the provider');
  });

  it('DELETE ends the session: status ended on detail, and a new message gives 409 session_ended', async () => {
    const sessionId = await fixture.newSession();
    const ended = await fixture.endSession(sessionId);
    assert.equal(ended.status, 200);
    assert.equal((await fixture.getSession(sessionId)).body.status, 'ended');
    const message = await fixture.postMessage(sessionId, { prompt: 'still there?' });
    assert.equal(message.status, 409);
    assert.equal(message.body.error, 'session_ended');
    assert.equal(typeof message.body.message, 'string');
    assert.equal(fixture.fake.requests.length, 0);
  });

  it('DELETE of an already ended session changes nothing: the session stays ended', async () => {
    const sessionId = await fixture.newSession();
    await fixture.endSession(sessionId);
    const again = await fixture.endSession(sessionId);
    assert.equal(again.status, 200);
    assert.equal((await fixture.getSession(sessionId)).body.status, 'ended');
  });

  it('DELETE cancels the in-flight run: its stream ends with cancelled and nothing is appended', async () => {
    // After its first delta the reply waits for the DELETE's answer: the run is in flight when it lands.
    const deleted = deferred();
    fixture.fake.enqueue({
      text: Array.from({ length: 200 }, () => 'x'),
      holdAfterChunks: EVENTS_THROUGH_FIRST_TEXT,
      holdUntil: deleted.promise,
    });
    const sessionId = await fixture.newSession();
    const run = await fixture.startMessage(sessionId, { prompt: 'a long answer please' });
    await run.waitForType('assistant_delta');
    assert.equal((await fixture.endSession(sessionId)).status, 200);
    deleted.resolve();
    const frames = await run.ended;
    assert.equal(terminalOf(frames)?.type, 'cancelled');
    assert.equal(
      frames.filter((frame) => ['result', 'error', 'cancelled'].includes(frame.data.type)).length,
      1,
    );
    assert.equal((await fixture.runSnapshot(run.runId)).body.status, 'cancelled');
    await eventually(
      async () => (await fixture.getSession(sessionId)).body.activeRunId === null,
      'the run is released',
    );
    const replay = await fixture.replay(sessionId);
    assert.equal(replay.body.total, 0);
    assert.deepEqual(replay.body.events, []);
    assert.equal((await fixture.getSession(sessionId)).body.status, 'ended');
  });

  it('DELETE racing a message: a message the service accepted is an in-flight run, so it ends cancelled', async () => {
    // Either the message loses (409 session_ended) or it was accepted before the session ended,
    // in which case the delete must cancel it and the ended session must stay empty.
    const accepted: string[] = [];
    for (let attempt = 0; attempt < 9; attempt++) {
      fixture.fake.reset();
      // A run let in is answered only after the DELETE's answer, so it is in flight when the DELETE lands.
      const deleted = deferred();
      fixture.fake.enqueue({ text: ['late reply'], holdUntil: deleted.promise });
      const sessionId = await fixture.newSession();
      const sent = fixture.postMessage(sessionId, { prompt: `race ${attempt}` });
      const [message, ended] = await Promise.all([
        sent,
        attempt === 0
          ? // The first attempt lets the message in before the delete, so the in-flight case is
            // checked whichever way the races below happen to fall on a busy machine.
            sent.then(() => fixture.endSession(sessionId))
          : (async () => {
              // 0, 1 or 2 event-loop hops before the delete: the request order varies between attempts.
              for (let hop = 0; hop < attempt % 3; hop++)
                await new Promise((resolve) => setImmediate(resolve));
              return fixture.endSession(sessionId);
            })(),
      ]);
      deleted.resolve();
      assert.equal(ended.status, 200);
      if (message.status === 409) {
        assert.equal(message.body.error, 'session_ended');
        continue;
      }
      assert.equal(message.status, 202);
      accepted.push(message.body.runId);
      const frames = await readAll(fixture.streamUrl(message.body.runId), fixture.headers);
      assert.equal(
        terminalOf(frames)?.type,
        'cancelled',
        `attempt ${attempt}: run ${message.body.runId} accepted on a session being deleted was not cancelled`,
      );
      assert.equal(
        (await fixture.replay(sessionId)).body.total,
        0,
        `attempt ${attempt}: the ended session grew`,
      );
    }
    assert.ok(accepted.length > 0, 'the first attempt let the message in first');
  });
});
