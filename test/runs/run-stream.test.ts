import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { readAll, readToEnd, type SseFrame } from '../support/sse-client.ts';
import { startRunFixture, textOf, types, type RunFixture } from '../support/run-fixture.ts';
import { deferred } from '../support/waits.ts';

const slowReply = (words: number, intervalMs = 15) => ({
  text: Array.from({ length: words }, (_, index) => `w${index} `),
  chunkIntervalMs: intervalMs,
});

describe('the run event stream: replay, reconnect, late and concurrent subscribers, heartbeats', () => {
  let fixture: RunFixture;
  before(async () => {
    fixture = await startRunFixture('openai-chat', { engine: { heartbeatMs: 40 } });
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  it('a subscriber joining after the end gets the whole log replayed, then the connection closes', async () => {
    const { runId, frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'hi' });
    const replay = await readAll(fixture.streamUrl(runId), fixture.headers);
    assert.deepEqual(
      replay.map((frame) => frame.raw),
      frames.map((frame) => frame.raw),
    );
  });

  it('Last-Event-ID resumes after that seq, in order, with no duplicate', async () => {
    fixture.fake.enqueue(slowReply(6, 0));
    const { runId, frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'hi' });
    const resumed = await readAll(fixture.streamUrl(runId), { ...fixture.headers, 'last-event-id': '3' });
    assert.deepEqual(
      resumed.map((frame) => frame.data.seq),
      frames.filter((frame) => frame.data.seq > 3).map((frame) => frame.data.seq),
    );
  });

  it('the lastSeq query integer resumes the same way', async () => {
    const { runId, frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'hi' });
    const last = frames.at(-1)?.data.seq ?? 0;
    const resumed = await readAll(fixture.streamUrl(runId, `?lastSeq=${last - 1}`), fixture.headers);
    assert.deepEqual(
      resumed.map((frame) => frame.data.seq),
      [last],
    );
  });

  it('resuming an ended run at or past its terminal event closes the stream at once, with no frame', async () => {
    const { runId, frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'hi' });
    const terminalSeq = String(frames.at(-1)?.data.seq);
    for (const [suffix, headers] of [
      ['', { ...fixture.headers, 'last-event-id': terminalSeq }],
      [`?lastSeq=${terminalSeq}`, fixture.headers],
      ['?lastSeq=999', fixture.headers],
    ] as const) {
      const stream = await fixture.openStream(runId, { query: suffix, headers });
      assert.equal(stream.status, 200);
      // A stream left open fails here, at the wait cap, naming what it got.
      const resumed = await readToEnd(stream, fixture.streamUrl(runId, suffix));
      assert.deepEqual(resumed, [], `${suffix || 'Last-Event-ID'}: nothing after the terminal event`);
      // Heartbeats come every 40 ms here: closed before the first one is closed at once.
      assert.deepEqual(stream.comments, [], `${suffix || 'Last-Event-ID'}: closed before any heartbeat`);
    }
  });

  it('a malformed lastSeq or Last-Event-ID is 400 invalid_request', async () => {
    const { runId } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'hi' });
    const badQuery = await fixture.server.request(
      'GET',
      `${fixture.ws}/agent-runs/${runId}/stream?lastSeq=-1`,
      {
        headers: fixture.headers,
      },
    );
    assert.equal(badQuery.status, 400);
    assert.equal(badQuery.body.error, 'invalid_request');
    const badHeader = await fixture.server.request('GET', `${fixture.ws}/agent-runs/${runId}/stream`, {
      headers: { ...fixture.headers, 'last-event-id': 'abc' },
    });
    assert.equal(badHeader.status, 400);
  });

  it('a reconnect in the middle of a live run, to another API replica, replays what was missed and continues live with no gap', async () => {
    fixture.fake.enqueue(slowReply(30));
    const created = await fixture.createRun({ systemPrompt: 's', prompt: 'long' });
    const first = await fixture.watchRun(created.body.runId);
    await first.waitFor(() => first.frames.length >= 5, 'five frames');
    first.close();
    const seen = first.frames.slice(0, 5);
    const other = await fixture.server.otherReplica();
    const rest = await readAll(`${other.baseUrl}${fixture.ws}/agent-runs/${created.body.runId}/stream`, {
      ...fixture.headers,
      'last-event-id': String(seen.at(-1)?.data.seq),
    });
    const all = [...seen, ...rest];
    assert.deepEqual(
      all.map((frame) => frame.data.seq),
      all.map((_, index) => index + 1),
    );
    assert.equal(types(all).at(-1), 'result');
    assert.equal(textOf(all), Array.from({ length: 30 }, (_, index) => `w${index} `).join(''));
  });

  it('many concurrent subscribers, joining at different times on two API replicas, each get every event exactly once in order', async () => {
    fixture.fake.enqueue(slowReply(40, 10));
    const created = await fixture.createRun({ systemPrompt: 's', prompt: 'fan out' });
    const other = await fixture.server.otherReplica();
    const urls = [
      fixture.streamUrl(created.body.runId),
      `${other.baseUrl}${fixture.ws}/agent-runs/${created.body.runId}/stream`,
    ];
    const readers: Promise<SseFrame[]>[] = [];
    for (let index = 0; index < 12; index++) {
      readers.push(readAll(urls[index % 2]!, fixture.headers));
      // Only spreads the joins over the run; any spread (a slow machine's included) must give the same frames.
      await sleep(20);
    }
    const results = await Promise.all(readers);
    const expected = results[0]?.map((frame) => frame.raw);
    assert.equal(expected?.length, 42);
    for (const frames of results) {
      assert.deepEqual(
        frames.map((frame) => frame.raw),
        expected,
      );
    }
  });

  it('an event in the log that no live message announced (a lost Redis message) is found at the next idle heartbeat', async () => {
    // The model never answers: whatever the stream shows came from the log, while the run waited on it.
    fixture.fake.enqueue({ type: 'hang' });
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'wait' });
    // Written to the log directly, never published: what a subscriber sees when pub/sub drops one.
    await fixture.server.service.resources.repos.runEvents.append([
      { runId: run.runId, events: [{ seq: 1, type: 'assistant_delta', dataJson: '{"text":"unannounced"}' }] },
    ]);
    const first = await run.waitFor(() => true, 'the first frame');
    assert.equal(first.data.seq, 1);
    assert.equal(first.data.data.text, 'unannounced');
  });

  it('a log larger than a live subscriber may fall behind (a 9 MB tool call) is replayed whole, paced by the client', async () => {
    const page = 'x'.repeat(9_000_000);
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'call_big', name: 'store_page', input: { page } }] },
      { text: ['stored'] },
    );
    const run = await fixture.startRun({
      systemPrompt: 's',
      prompt: 'store',
      tools: [{ kind: 'local', name: 'store_page', parameters: { type: 'object' } }],
    });
    const call = await run.waitForType('local_tool_call');
    assert.equal(call.data.data.args.page.length, page.length);
    const posted = await fixture.server.request(
      'POST',
      `${fixture.ws}/agent-runs/${run.runId}/tool-results`,
      {
        body: { toolUseId: 'call_big', result: 'ok' },
        headers: fixture.headers,
      },
    );
    assert.equal(posted.status, 200);
    const live = await run.ended;
    assert.equal(types(live).at(-1), 'result', JSON.stringify(live.at(-1)?.data).slice(0, 500));
    const replayed = await readAll(fixture.streamUrl(run.runId), fixture.headers);
    assert.deepEqual(
      replayed.map((frame) => frame.raw),
      live.map((frame) => frame.raw),
    );
  });

  it('idle connections get heartbeat comments while the model has not answered', async () => {
    // The model answers only once the idle stream has shown its heartbeats.
    const answer = deferred();
    fixture.fake.enqueue({ text: ['late'], holdUntil: answer.promise });
    const created = await fixture.createRun({ systemPrompt: 's', prompt: 'wait' });
    const url = fixture.streamUrl(created.body.runId);
    const stream = await fixture.openStream(created.body.runId);
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    const read = readToEnd(stream, url);
    await stream.waitForComments(2);
    answer.resolve();
    const frames = await read;
    assert.ok(stream.comments.length >= 2, `expected heartbeats, saw ${stream.comments.length}`);
    assert.equal(types(frames).at(-1), 'result');
  });
});
