import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openSse, readAll, type SseFrame } from '../support/sse-client.ts';
import { startRunFixture, textOf, types, type RunFixture } from '../support/run-fixture.ts';

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
      const started = Date.now();
      const stream = await openSse(fixture.streamUrl(runId, suffix), headers);
      assert.equal(stream.status, 200);
      const resumed: SseFrame[] = [];
      for await (const frame of stream.frames) resumed.push(frame);
      assert.deepEqual(resumed, [], `${suffix || 'Last-Event-ID'}: nothing after the terminal event`);
      // Heartbeats come every 40 ms here: a stream left open would collect them until the test timed out.
      assert.deepEqual(stream.comments, [], `${suffix || 'Last-Event-ID'}: closed before any heartbeat`);
      assert.ok(Date.now() - started < 1000);
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

  it('a reconnect in the middle of a live run replays what was missed and continues live with no gap', async () => {
    fixture.fake.enqueue(slowReply(30));
    const created = await fixture.createRun({ systemPrompt: 's', prompt: 'long' });
    const first = await openSse(fixture.streamUrl(created.body.runId), fixture.headers);
    const seen: SseFrame[] = [];
    for await (const frame of first.frames) {
      seen.push(frame);
      if (seen.length === 5) break;
    }
    first.close();
    const rest = await readAll(fixture.streamUrl(created.body.runId), {
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

  it('many concurrent subscribers, joining at different times, each get every event exactly once in order', async () => {
    fixture.fake.enqueue(slowReply(40, 10));
    const created = await fixture.createRun({ systemPrompt: 's', prompt: 'fan out' });
    const url = fixture.streamUrl(created.body.runId);
    const readers: Promise<SseFrame[]>[] = [];
    for (let index = 0; index < 12; index++) {
      readers.push(readAll(url, fixture.headers));
      await new Promise((resolve) => setTimeout(resolve, 20));
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
    fixture.fake.enqueue({ text: ['late'], firstChunkDelayMs: 1500 });
    const created = await fixture.createRun({ systemPrompt: 's', prompt: 'wait' });
    const runId = created.body.runId as string;
    const stream = await openSse(fixture.streamUrl(runId), fixture.headers);
    const opened = Date.now();
    try {
      // Written to the log directly, never published: what a subscriber sees when pub/sub drops one.
      await fixture.server.service.resources.repos.runEvents.append([
        { runId, events: [{ seq: 1, type: 'assistant_delta', dataJson: '{"text":"unannounced"}' }] },
      ]);
      const first = await stream.frames.next();
      assert.equal(first.value?.data.seq, 1);
      assert.equal(first.value?.data.data.text, 'unannounced');
      assert.ok(Date.now() - opened < 1500, 'found while the model had not answered yet');
    } finally {
      stream.close();
    }
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
    fixture.fake.enqueue({ text: ['late'], firstChunkDelayMs: 250 });
    const created = await fixture.createRun({ systemPrompt: 's', prompt: 'wait' });
    const stream = await openSse(fixture.streamUrl(created.body.runId), fixture.headers);
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    const frames: SseFrame[] = [];
    for await (const frame of stream.frames) frames.push(frame);
    assert.ok(stream.comments.length >= 2, `expected heartbeats, saw ${stream.comments.length}`);
    assert.equal(types(frames).at(-1), 'result');
  });
});
