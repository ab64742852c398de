import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LocalToolDispatcher, NotFoundError, SessionBusyError } from '@agent-runs/client';
import { startClientFixture, type ClientFixture } from './client-fixture.ts';

describe('sessions: create, send, history, list, end', () => {
  let fixture: ClientFixture;
  before(async () => {
    fixture = await startClientFixture('sdk-sessions');
  });
  after(() => fixture.close());

  it('sessions.send runs a message on the history and resolves with its result; events replays the turns', async () => {
    const client = fixture.client;
    const { sessionId } = await client.sessions.create({ systemPrompt: 's', metadata: { user: 'ada' } });
    const first = await client.sessions.send(sessionId, 'hello session');
    assert.equal(first.type, 'result');
    if (first.type === 'result') assert.equal(first.result.text, 'You said: hello session');
    const second = await client.sessions.send(sessionId, { prompt: 'second turn', metadata: { turn: '2' } });
    assert.equal(second.type, 'result');

    const replay = await client.sessions.events(sessionId);
    assert.equal(replay.total, 4);
    assert.deepEqual(
      replay.events.map((frame) => [frame.seq, frame.type, frame.text]),
      [
        [0, 'user_message', 'hello session'],
        [1, 'assistant_message', 'You said: hello session'],
        [2, 'user_message', 'second turn'],
        [3, 'assistant_message', 'You said: second turn'],
      ],
    );
    const lastTwo = await client.sessions.events(sessionId, { lastMessages: 2 });
    assert.deepEqual(
      lastTwo.events.map((frame) => frame.seq),
      [2, 3],
    );
    assert.equal(lastTwo.total, 4);

    const snapshot = await client.runs.get(second.runId);
    assert.deepEqual(snapshot.metadata, { user: 'ada', turn: '2' });
  });

  it('sessions.message answers { runId, streamUrl } for a run the caller follows itself', async () => {
    const { sessionId } = await fixture.client.sessions.create({ systemPrompt: 's' });
    const created = await fixture.client.sessions.message(sessionId, { prompt: 'streamed' });
    assert.match(created.streamUrl, new RegExp(`/agent-runs/${created.runId}/stream$`));
    const outcome = await fixture.client.runs.follow(created.runId);
    assert.equal(outcome.type, 'result');
  });

  it('sessions.send with tools answers local tools declared on the session', async () => {
    const tools = new LocalToolDispatcher();
    tools.local('clock', () => 'noon', { parameters: { type: 'object', properties: {} } });
    const { sessionId } = await fixture.client.sessions.create({
      systemPrompt: 's',
      tools: tools.toolRefs(),
    });
    const outcome = await fixture.client.sessions.send(sessionId, 'call clock {}', { tools });
    assert.equal(outcome.type, 'result');
    if (outcome.type === 'result') assert.match(outcome.result.text, /noon/);
  });

  it('ifBusy (extensions §6): sessions.send with { ifBusy: enqueue } queues behind the run in flight; the default is SessionBusyError', async () => {
    const tools = new LocalToolDispatcher();
    tools.local('clock', () => 'noon', { parameters: { type: 'object', properties: {} } });
    const client = fixture.client;
    const { sessionId } = await client.sessions.create({ systemPrompt: 's', tools: tools.toolRefs() });
    // The first run waits for the clock's answer, which comes only once it is followed: the session is busy.
    const first = await client.sessions.message(sessionId, { prompt: 'call clock {}' });
    await assert.rejects(client.sessions.send(sessionId, 'refused'), SessionBusyError);
    const queued = await client.sessions.message(sessionId, { prompt: 'queued', ifBusy: 'enqueue' });
    assert.equal((await client.runs.get(queued.runId)).status, 'queued');
    const sent = client.sessions.send(sessionId, 'sent', { ifBusy: 'enqueue' });
    assert.equal((await client.runs.follow(first.runId, { tools })).type, 'result');
    assert.equal((await client.runs.follow(queued.runId)).type, 'result');
    const outcome = await sent;
    assert.equal(outcome.type, 'result');
    if (outcome.type === 'result') assert.equal(outcome.result.text, 'You said: sent');
    const replay = await client.sessions.events(sessionId);
    assert.deepEqual(
      replay.events.filter((frame) => frame.type === 'user_message').map((frame) => frame.text),
      ['call clock {}', 'queued', 'sent'],
    );
  });

  it('sessions.list filters by metadata and status; get gives the detail; end ends the session', async () => {
    const client = fixture.client;
    const tagged = await client.sessions.create({
      systemPrompt: 's',
      metadata: { team: 'blue', tier: 'gold' },
    });
    await client.sessions.create({ systemPrompt: 's', metadata: { team: 'blue', tier: 'silver' } });

    const gold = await client.sessions.list({ metadata: { team: 'blue', tier: 'gold' } });
    assert.deepEqual(
      gold.sessions.map((entry) => entry.sessionId),
      [tagged.sessionId],
    );
    assert.equal(gold.total, 1);
    const page = await client.sessions.list({ metadata: { team: 'blue' }, limit: 1, offset: 1 });
    assert.equal(page.total, 2);
    assert.equal(page.limit, 1);
    assert.equal(page.sessions.length, 1);

    const detail = await client.sessions.get(tagged.sessionId);
    assert.equal(detail.status, 'active');
    assert.equal(detail.messageCount, 0);
    assert.equal(detail.activeRunId, null);

    assert.deepEqual(await client.sessions.end(tagged.sessionId), {
      sessionId: tagged.sessionId,
      status: 'ended',
    });
    const ended = await client.sessions.list({ metadata: { team: 'blue' }, status: 'ended' });
    assert.deepEqual(
      ended.sessions.map((entry) => entry.sessionId),
      [tagged.sessionId],
    );
  });

  it('an unknown session is NotFoundError on every route', async () => {
    const client = fixture.client;
    await assert.rejects(client.sessions.get('ses_unknown'), NotFoundError);
    await assert.rejects(client.sessions.events('ses_unknown'), NotFoundError);
    await assert.rejects(client.sessions.send('ses_unknown', 'hi'), NotFoundError);
    await assert.rejects(client.sessions.end('ses_unknown'), NotFoundError);
  });
});
