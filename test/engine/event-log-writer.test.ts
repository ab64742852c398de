import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunOutcome } from '../../src/domain/run.ts';
import type { SerializedRunEvent } from '../../src/domain/run-events.ts';
import { EventLogWriter } from '../../src/engine/log/event-log-writer.ts';
import { sseFrame } from '../../src/domain/sse-frame.ts';
import type { EventBatch, EventStore, PublishedEvent, RunEventBus } from '../../src/engine/ports.ts';

/** Resolves after the writer's `setImmediate` of the current turn, and the microtasks it leads to, have run. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface PendingCommit {
  batches: readonly EventBatch[];
  succeed(): void;
  fail(error: Error): void;
}

/**
 * The event log in memory. Each `append` waits until the test settles it (`pending`), so the test
 * sees what is in flight; `fenced` runs are refused, as the store refuses a superseded attempt.
 */
class InMemoryEventStore implements EventStore {
  readonly rows = new Map<string, SerializedRunEvent[]>();
  readonly pending: PendingCommit[] = [];
  readonly fenced = new Set<string>();
  appendCalls = 0;

  append(batches: readonly EventBatch[]): Promise<ReadonlySet<string>> {
    this.appendCalls++;
    return new Promise((resolve, reject) => {
      this.pending.push({
        batches,
        succeed: () => {
          const refused = new Set(
            batches.map((batch) => batch.runId).filter((runId) => this.fenced.has(runId)),
          );
          for (const batch of batches) {
            if (refused.has(batch.runId)) continue;
            const rows = this.rows.get(batch.runId) ?? [];
            rows.push(...batch.events.map(({ seq, type, dataJson }) => ({ seq, type, dataJson })));
            this.rows.set(batch.runId, rows);
          }
          resolve(refused);
        },
        fail: reject,
      });
    });
  }

  async readAfter(runId: string, afterSeq: number, limit = Infinity): Promise<SerializedRunEvent[]> {
    return (this.rows.get(runId) ?? []).filter((event) => event.seq > afterSeq).slice(0, limit);
  }

  async lastSeq(runId: string): Promise<number> {
    return this.rows.get(runId)?.at(-1)?.seq ?? 0;
  }

  /** Settles the oldest commit in flight. */
  settleNext(outcome: 'succeed' | Error = 'succeed'): void {
    const commit = this.pending.shift();
    assert.ok(commit, 'no commit in flight');
    if (outcome === 'succeed') commit.succeed();
    else commit.fail(outcome);
  }

  seqsOf(runId: string): number[] {
    return (this.rows.get(runId) ?? []).map((event) => event.seq);
  }
}

/** Records what is published, and checks that each event was durable before it was. */
class RecordingBus implements RunEventBus {
  readonly published: Array<{ runId: string; seqs: number[] }> = [];
  readonly #store: InMemoryEventStore;

  constructor(store: InMemoryEventStore) {
    this.#store = store;
  }

  publish(runId: string, events: readonly PublishedEvent[]): void {
    const durable = this.#store.seqsOf(runId);
    for (const event of events) {
      assert.ok(durable.includes(event.seq), `run ${runId} seq ${event.seq} published before it was durable`);
      assert.equal(event.frame, sseFrame(event.seq, event.type, event.dataJson));
    }
    this.published.push({ runId, seqs: events.map((event) => event.seq) });
  }

  async subscribe(): Promise<() => void> {
    return () => {};
  }

  seqsOf(runId: string): number[] {
    return this.published.filter((entry) => entry.runId === runId).flatMap((entry) => entry.seqs);
  }
}

function setup() {
  const store = new InMemoryEventStore();
  const bus = new RecordingBus(store);
  return { store, bus, writer: new EventLogWriter(store, bus) };
}

const USAGE = {
  tokens: { inputTokens: 0, cachedTokens: 0, reasoningTokens: 0, outputTokens: 0 },
  turns: 0,
  model: { id: 'm', provider: 'p', vendorModelId: 'v' },
};
const OUTCOME: RunOutcome = {
  status: 'cancelled',
  finalText: null,
  error: null,
  failureReason: null,
  ...USAGE,
};

/** Whether the promise has settled by now. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await nextTurn();
  return done;
}

describe('the event-log writer', () => {
  it('commits the appends of one event-loop turn in one store.append call, one batch per run', async () => {
    const { store, writer } = setup();
    void writer.append('a', 1, 'assistant_delta', { text: 'x' });
    void writer.append('b', 1, 'assistant_delta', { text: 'y' }, { attempt: 3 });
    void writer.append('a', 2, 'cancelled', USAGE, { outcome: OUTCOME });
    assert.equal(store.appendCalls, 0, 'nothing is written before the turn ends');
    await nextTurn();
    assert.equal(store.appendCalls, 1);
    const [commit] = store.pending;
    assert.deepEqual(
      commit?.batches.map((batch) => ({
        runId: batch.runId,
        seqs: batch.events.map((event) => event.seq),
        outcome: batch.outcome,
        attempt: batch.attempt,
      })),
      [
        { runId: 'a', seqs: [1, 2], outcome: OUTCOME, attempt: undefined },
        { runId: 'b', seqs: [1], outcome: undefined, attempt: 3 },
      ],
    );
    assert.equal(commit?.batches[0]?.events[0]?.dataJson, '{"text":"x"}');
  });

  it('publishes only after the commit resolves, in seq order', async () => {
    const { store, bus, writer } = setup();
    void writer.append('a', 1, 'assistant_delta', { text: '1' });
    void writer.append('a', 2, 'assistant_delta', { text: '2' });
    await nextTurn();
    assert.deepEqual(bus.published, [], 'not published while the commit is in flight');
    void writer.append('a', 3, 'assistant_delta', { text: '3' });
    await nextTurn();
    store.settleNext();
    await nextTurn();
    assert.deepEqual(bus.seqsOf('a'), [1, 2]);
    store.settleNext();
    await nextTurn();
    assert.deepEqual(bus.published, [
      { runId: 'a', seqs: [1, 2] },
      { runId: 'a', seqs: [3] },
    ]);
  });

  it('commits strictly one after the other: the next commit starts only when the one in flight is done', async () => {
    const { store, writer } = setup();
    void writer.append('a', 1, 'assistant_delta', { text: '1' });
    await nextTurn();
    void writer.append('a', 2, 'assistant_delta', { text: '2' });
    await nextTurn();
    void writer.append('b', 1, 'assistant_delta', { text: '1' });
    await nextTurn();
    assert.equal(store.appendCalls, 1);
    store.settleNext();
    await nextTurn();
    assert.equal(store.appendCalls, 2);
    store.settleNext();
    await nextTurn();
    assert.equal(store.appendCalls, 3);
    store.settleNext();
    await nextTurn();
    assert.deepEqual(store.seqsOf('a'), [1, 2]);
    assert.deepEqual(store.seqsOf('b'), [1]);
  });

  it("a failed commit rejects its waiters and the run's later queued events are not written until it recovers", async () => {
    const { store, bus, writer } = setup();
    const first = writer.append('a', 1, 'assistant_delta', { text: '1' });
    await nextTurn();
    const second = writer.append('a', 2, 'assistant_delta', { text: '2' });
    void writer.append('b', 1, 'assistant_delta', { text: 'other run' });
    await nextTurn();
    store.settleNext(new Error('disk full'));
    await assert.rejects(first, /disk full/);
    assert.equal(writer.isBroken('a'), true);
    assert.equal(writer.isBroken('b'), false);
    store.settleNext();
    assert.deepEqual(await second, new Set());
    assert.deepEqual(store.seqsOf('a'), [], 'behind the failed commit: not written');
    assert.deepEqual(store.seqsOf('b'), [1], 'other runs are written');
    assert.deepEqual(bus.seqsOf('a'), []);

    await writer.recover('a');
    assert.equal(writer.isBroken('a'), false);
    const again = writer.append('a', 1, 'assistant_delta', { text: '1 again' });
    await nextTurn();
    store.settleNext();
    await again;
    assert.deepEqual(store.seqsOf('a'), [1]);
    assert.deepEqual(bus.seqsOf('a'), [1]);
  });

  it('recover lets the run write again only once the commits still in flight are done', async () => {
    const { store, writer } = setup();
    void writer.append('a', 1, 'assistant_delta', { text: '1' });
    await nextTurn();
    void writer.append('a', 2, 'assistant_delta', { text: '2' });
    void writer.append('b', 1, 'assistant_delta', { text: 'other run' });
    await nextTurn();
    store.settleNext(new Error('lost connection'));
    await nextTurn();
    assert.deepEqual(
      store.pending.map((commit) => commit.batches.map((batch) => batch.runId)),
      [['b']],
      "the next commit is in flight without the broken run's event",
    );
    const recovered = writer.recover('a');
    assert.equal(await settled(recovered), false);
    assert.equal(writer.isBroken('a'), true);
    store.settleNext();
    await recovered;
    assert.equal(writer.isBroken('a'), false);
    assert.deepEqual(store.seqsOf('a'), [], 'the event queued behind the failure was dropped');
    assert.deepEqual(store.seqsOf('b'), [1]);
  });

  it("a fenced run's events are not published; the commit reports the run as fenced", async () => {
    const { store, bus, writer } = setup();
    store.fenced.add('a');
    const committed = writer.append('a', 5, 'assistant_delta', { text: 'stale attempt' }, { attempt: 1 });
    void writer.append('b', 1, 'assistant_delta', { text: 'owner' });
    await nextTurn();
    store.settleNext();
    assert.deepEqual(await committed, new Set(['a']));
    assert.deepEqual(bus.seqsOf('a'), []);
    assert.deepEqual(bus.seqsOf('b'), [1]);
  });

  it('durable() resolves once everything appended so far is committed and published', async () => {
    const { store, bus, writer } = setup();
    assert.equal(await settled(writer.durable()), true, 'nothing appended: durable at once');
    void writer.append('a', 1, 'assistant_delta', { text: '1' });
    await nextTurn();
    void writer.append('a', 2, 'assistant_delta', { text: '2' });
    const durable = writer.durable();
    await nextTurn();
    store.settleNext();
    assert.equal(await settled(durable), false, 'the second commit is still in flight');
    store.settleNext();
    await durable;
    assert.deepEqual(store.seqsOf('a'), [1, 2]);
    assert.deepEqual(bus.seqsOf('a'), [1, 2]);
  });
});
