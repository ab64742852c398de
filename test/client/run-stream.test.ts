import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { NotFoundError, RunStreamError, type RunEvent } from '@agent-runs/client';
import { eventually, withCap, WAIT_CAP_MS } from '../support/waits.ts';
import { SLOW_MODEL, startClientFixture, wordsPrompt, type ClientFixture } from './client-fixture.ts';
import { startCuttingProxy, type ConnectionPlan, type CuttingProxy } from './cutting-proxy.ts';

async function collect(events: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const collected: RunEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

const seqsOf = (events: RunEvent[]) => events.map((event) => event.seq);
const oneToN = (n: number) => Array.from({ length: n }, (_, index) => index + 1);

describe('runs.stream: typed events, transparent reconnection with Last-Event-ID', () => {
  let fixture: ClientFixture;
  let proxy: CuttingProxy | undefined;
  before(async () => {
    fixture = await startClientFixture('sdk-stream');
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });
  after(() => fixture.close());

  /** A client whose connections go through a proxy that treats connection N by `plan(N)`. */
  async function clientThroughProxy(plan: (connection: number) => ConnectionPlan, fetchImpl = fetch) {
    proxy = await startCuttingProxy(fixture.server.baseUrl, plan);
    return fixture.clientWith({ baseUrl: proxy.baseUrl, fetch: fetchImpl });
  }

  /** A run of the slow model: about 20 ms per word, so a stream opened now follows it live. */
  const slowRun = (words: number) =>
    fixture.client.runs.create({ systemPrompt: 's', modelId: SLOW_MODEL, prompt: wordsPrompt(words) });

  it('connections cut mid-run are resumed: every seq arrives exactly once, in order, ending at the terminal event', async () => {
    const cuts = [600, 900, 1300, 1700];
    const cursorsSent: Array<string | undefined> = [];
    const recordingFetch: typeof fetch = (input, init) => {
      cursorsSent.push(new Headers(init?.headers).get('last-event-id') ?? undefined);
      return fetch(input, init);
    };
    const client = await clientThroughProxy((connection) => {
      const afterBytes = cuts[connection - 1];
      return afterBytes === undefined ? { action: 'pass' } : { action: 'cut', afterBytes };
    }, recordingFetch);
    const { runId } = await slowRun(60);
    const events = await withCap(
      collect(client.runs.stream(runId, { reconnect: { initialDelayMs: 20 } })),
      WAIT_CAP_MS,
      () => `the stream of ${runId} did not end`,
    );

    assert.ok((proxy?.connections ?? 0) > cuts.length, `only ${proxy?.connections} connections`);
    assert.deepEqual(seqsOf(events), oneToN(events.length));
    // Each reopen asked for the events after the last one received: the server resumed, not replayed.
    assert.equal(cursorsSent[0], undefined);
    const cursors = cursorsSent.slice(1).map(Number);
    assert.ok(cursors.length >= cuts.length, `reopened ${cursors.length} times`);
    assert.ok(
      cursors.every((cursor, index) => cursor > 0 && cursor >= (cursors[index - 1] ?? 0)),
      `${cursors}`,
    );
    assert.equal(events.at(-1)?.type, 'result');
    const deltas = events.filter((event) => event.type === 'assistant_delta').length;
    assert.ok(deltas >= 60, `${deltas} deltas`);
    // The same events, byte for byte, as one uninterrupted read of the log.
    assert.deepEqual(events, await collect(fixture.client.runs.stream(runId)));
  });

  it('the terminal event ends the iteration, with its typed data', async () => {
    const { runId } = await fixture.client.runs.create({ systemPrompt: 's', prompt: 'typed please' });
    const events = await collect(fixture.client.runs.stream(runId));
    const terminal = events.at(-1);
    assert.equal(terminal?.type, 'result');
    if (terminal?.type !== 'result') return;
    assert.equal(terminal.data.text, 'You said: typed please');
    assert.equal(terminal.data.subtype, 'success');
    assert.equal(events.filter((event) => event.type === 'result').length, 1);
  });

  it('lastSeq resumes after that seq (Last-Event-ID): only the later events come', async () => {
    const { runId } = await slowRun(5);
    const all = await collect(fixture.client.runs.stream(runId));
    const resumed = await collect(fixture.client.runs.stream(runId, { lastSeq: 3 }));
    assert.deepEqual(resumed, all.slice(3));
  });

  it('resuming at the terminal event of an ended run ends the iteration with no event', async () => {
    const { runId } = await fixture.client.runs.create({ systemPrompt: 's', prompt: 'done already' });
    const all = await collect(fixture.client.runs.stream(runId));
    const terminalSeq = all.at(-1)?.seq ?? 0;
    assert.deepEqual(await collect(fixture.client.runs.stream(runId, { lastSeq: terminalSeq })), []);
    assert.deepEqual(await collect(fixture.client.runs.stream(runId, { lastSeq: terminalSeq + 50 })), []);
  });

  it('a connection that goes silent is given up after idleTimeoutMs and resumed', async () => {
    const client = await clientThroughProxy((connection) =>
      connection === 1 ? { action: 'stall', afterBytes: 1500 } : { action: 'pass' },
    );
    const { runId } = await slowRun(40);
    const events = await collect(
      client.runs.stream(runId, { reconnect: { idleTimeoutMs: 300, initialDelayMs: 20 } }),
    );
    assert.ok((proxy?.connections ?? 0) >= 2);
    assert.deepEqual(seqsOf(events), oneToN(events.length));
    assert.equal(events.at(-1)?.type, 'result');
  });

  it('time the consumer spends on an event does not count as an idle connection', async () => {
    let opens = 0;
    const client = fixture.clientWith({
      fetch: (input, init) => {
        if (String(input).endsWith('/stream')) opens += 1;
        return fetch(input, init);
      },
    });
    const { runId } = await slowRun(20);
    // The stream under test opens once the run has started, and its consumer holds seq 1 until the run
    // has ended: the later events (written live, one commit at a time) then wait in the socket, and
    // the only wait longer than the idle timeout is the consumer's. A network wait for seq 1 over
    // 150 ms (a loaded machine) may reopen the connection before that: not what this rule is about.
    for await (const first of fixture.client.runs.stream(runId)) if (first.seq === 1) break;
    const ended = collect(fixture.client.runs.stream(runId));
    let opensBeforeHolding = 0;
    const events: RunEvent[] = [];
    for await (const event of client.runs.stream(runId, { reconnect: { idleTimeoutMs: 150 } })) {
      events.push(event);
      if (event.seq !== 1) continue;
      opensBeforeHolding = opens;
      await Promise.all([ended, sleep(400)]);
    }
    assert.equal(opens, opensBeforeHolding, 'the connection was reopened after the consumer held an event');
    assert.deepEqual(events, await ended);
    assert.ok(events.length > 3, `${events.length} events`);
  });

  it('after maxConsecutiveFailures attempts without an event it throws RunStreamError with the last seq', async () => {
    const client = await clientThroughProxy(() => ({ action: 'refuse' }));
    const { runId } = await fixture.client.runs.create({ systemPrompt: 's', prompt: 'hi' });
    await assert.rejects(
      collect(client.runs.stream(runId, { reconnect: { maxConsecutiveFailures: 2, initialDelayMs: 5 } })),
      (error: unknown) => {
        assert.ok(error instanceof RunStreamError, String(error));
        assert.equal(error.runId, runId);
        assert.equal(error.lastSeq, 0);
        return true;
      },
    );
    assert.equal(proxy?.connections, 3);
  });

  it('breaking out of the loop closes the connection', async () => {
    const client = await clientThroughProxy(() => ({ action: 'pass' }));
    const { runId } = await slowRun(200);
    for await (const event of client.runs.stream(runId)) {
      assert.equal(event.seq, 1);
      break;
    }
    await eventually(() => proxy?.openConnections === 0, 'the proxied connection closed');
    await fixture.client.runs.cancel(runId);
  });

  it('aborting the signal closes the connection and rejects with the reason', async () => {
    const client = await clientThroughProxy(() => ({ action: 'pass' }));
    const { runId } = await slowRun(200);
    const controller = new AbortController();
    const reason = new Error('enough');
    const seen: number[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of client.runs.stream(runId, { signal: controller.signal })) {
          seen.push(event.seq);
          if (seen.length === 2) controller.abort(reason);
        }
      })(),
      (error) => error === reason,
    );
    assert.deepEqual(seen, [1, 2]);
    await eventually(() => proxy?.openConnections === 0, 'the proxied connection closed');
    await fixture.client.runs.cancel(runId);
  });

  it('an unknown run is NotFoundError at once, without reconnecting', async () => {
    const client = await clientThroughProxy(() => ({ action: 'pass' }));
    await assert.rejects(collect(client.runs.stream('run_unknown')), NotFoundError);
    assert.equal(proxy?.connections, 1);
  });
});
