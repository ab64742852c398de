import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { REPLAY_PAGE } from '../../src/engine/log/sse-sequencer.ts';
import type { PublishedEvent } from '../../src/engine/ports.ts';
import { logEvent, logEvents, published, ScriptedTransport, seqs } from './scripted-sse-transport.ts';

describe('the SSE sequencer', () => {
  it('reads the log only once the live subscription is up', () => {
    const transport = new ScriptedTransport({ log: logEvents(1, 3) });
    assert.equal(transport.pendingRead, undefined);
    transport.sequencer.subscribed();
    assert.deepEqual(
      transport.reads.map(({ afterSeq, limit }) => ({ afterSeq, limit })),
      [{ afterSeq: 0, limit: REPLAY_PAGE }],
    );
  });

  it('replays the log after the cursor, then forwards live events with no gap and no duplicate', () => {
    const transport = new ScriptedTransport({ log: logEvents(1, 3) });
    const { sequencer } = transport;
    sequencer.subscribed();
    transport.answerRead();
    assert.deepEqual(transport.sent, [1, 2, 3]);
    assert.equal(sequencer.catchingUp, false);
    const [fourth, fifth] = transport.commit(logEvent(4), logEvent(5));
    sequencer.liveEvent(published(logEvent(3)));
    sequencer.liveEvent(fourth!);
    sequencer.liveEvent(fourth!);
    sequencer.liveEvent(fifth!);
    assert.deepEqual(transport.sent, [1, 2, 3, 4, 5]);
    assert.equal(
      transport.frames[3],
      fourth!.frame,
      'a live event goes out as the frame it was published with',
    );
    assert.equal(transport.reads.length, 1);
  });

  it('buffers live events that arrive during the catch-up and sends them after the replay, in seq order', () => {
    const transport = new ScriptedTransport({ log: logEvents(1, 2) });
    const { sequencer } = transport;
    sequencer.subscribed();
    const [third, fourth] = transport.commit(logEvent(3), logEvent(4));
    sequencer.liveEvent(fourth!);
    sequencer.liveEvent(third!);
    sequencer.liveEvent(third!);
    assert.deepEqual(transport.sent, []);
    assert.equal(sequencer.catchingUp, true);
    transport.answerRead({ stale: true });
    assert.deepEqual(transport.sent, [1, 2, 3, 4]);
    assert.equal(sequencer.catchingUp, false);
    assert.equal(transport.reads.length, 1);
  });

  it('a live event that overtakes the replayed log makes it read just the gap below it from the log', () => {
    const transport = new ScriptedTransport({ log: logEvents(1, 2) });
    const { sequencer } = transport;
    sequencer.subscribed();
    const committed = transport.commit(...logEvents(3, 5));
    sequencer.liveEvent(committed[2]!);
    transport.answerRead({ stale: true });
    assert.deepEqual(transport.sent, [1, 2]);
    assert.deepEqual(transport.requestedRead(), [2, 2]);
    sequencer.liveEvent(committed[0]!);
    transport.answerRead();
    assert.deepEqual(transport.sent, [1, 2, 3, 4, 5]);
    assert.equal(sequencer.catchingUp, false);
  });

  it('a live event that overtakes the log once live makes it catch up from the log again', () => {
    const transport = new ScriptedTransport({ log: logEvents(1, 2) });
    const { sequencer } = transport;
    sequencer.subscribed();
    transport.answerRead();
    const [third, fourth] = transport.commit(logEvent(3), logEvent(4));
    sequencer.liveEvent(fourth!);
    assert.equal(sequencer.catchingUp, true);
    assert.deepEqual(transport.requestedRead(), [2, 100]);
    sequencer.liveEvent(third!);
    transport.answerRead();
    sequencer.liveEvent(third!);
    assert.deepEqual(transport.sent, [1, 2, 3, 4]);
    assert.equal(sequencer.catchingUp, false);
  });

  it('replays in pages of 100 events and reads the next page only once the client took the previous one', () => {
    const transport = new ScriptedTransport({ log: logEvents(1, 250) });
    transport.sequencer.subscribed();
    transport.answerRead();
    assert.deepEqual(transport.sent, seqs(1, 100));
    assert.equal(transport.pendingRead, undefined, 'no read until the client took the page');
    assert.equal(transport.waitingForClient, true);
    transport.clientTakes();
    transport.answerRead();
    assert.equal(transport.sent.length, 200);
    transport.clientTakes();
    transport.answerRead();
    assert.deepEqual(transport.sent, seqs(1, 250));
    assert.equal(transport.waitingForClient, false, 'a short page is the end of the log');
    assert.deepEqual(
      transport.reads.map(({ afterSeq, limit }) => [afterSeq, limit]),
      [
        [0, 100],
        [100, 100],
        [200, 100],
      ],
    );
    assert.equal(transport.sequencer.catchingUp, false);
  });

  it('closes right after the terminal event and never sends after it', () => {
    const replayed = new ScriptedTransport({ log: logEvents(1, 3, true) });
    replayed.sequencer.subscribed();
    replayed.answerRead();
    assert.deepEqual(replayed.sent, [1, 2, 3]);
    assert.equal(replayed.ended, true);

    const live = new ScriptedTransport({ log: logEvents(1, 2) });
    const { sequencer } = live;
    sequencer.subscribed();
    live.answerRead();
    const [terminal] = live.commit(logEvent(3, true));
    sequencer.liveEvent(terminal!);
    assert.deepEqual(live.sent, [1, 2, 3]);
    assert.equal(live.ended, true);
    sequencer.liveEvent(published(logEvent(4)));
    assert.equal(sequencer.heartbeat(), false);
    assert.equal(sequencer.heartbeat(), false);
    assert.deepEqual(live.sent, [1, 2, 3]);
    assert.equal(live.reads.length, 1);
  });

  it('resumed at or past the terminal event of an ended run, it closes at once with no frame', () => {
    for (const cursor of [3, 999]) {
      const transport = new ScriptedTransport({ cursor, runEnded: true, log: logEvents(1, 3, true) });
      transport.sequencer.subscribed();
      transport.answerRead();
      assert.deepEqual(transport.sent, [], `cursor ${cursor}`);
      assert.equal(transport.ended, true, `cursor ${cursor}`);
    }
  });

  it('a heartbeat tick while idle re-reads the log, so an event whose live message was lost still arrives', () => {
    const transport = new ScriptedTransport({ log: logEvents(1, 1) });
    const { sequencer } = transport;
    sequencer.subscribed();
    transport.answerRead();
    transport.commit(logEvent(2));
    assert.equal(sequencer.heartbeat(), false, 'a frame went out during the interval');
    assert.equal(transport.pendingRead, undefined);
    assert.equal(sequencer.heartbeat(), true);
    assert.deepEqual(transport.requestedRead(), [1, 100]);
    assert.equal(sequencer.heartbeat(), true, 'still idle');
    assert.equal(transport.reads.length, 2, 'no second read while one is in progress');
    transport.answerRead();
    assert.deepEqual(transport.sent, [1, 2]);
    assert.equal(sequencer.catchingUp, false);
  });

  it('a missed terminal event arrives at an idle heartbeat tick, and the stream closes after it', () => {
    const transport = new ScriptedTransport({ log: logEvents(1, 1) });
    const { sequencer } = transport;
    sequencer.subscribed();
    transport.answerRead();
    transport.commit(logEvent(2, true));
    sequencer.heartbeat();
    sequencer.heartbeat();
    transport.answerRead();
    assert.deepEqual(transport.sent, [1, 2]);
    assert.equal(transport.ended, true);
  });

  it('events at or below the cursor are never sent', () => {
    const transport = new ScriptedTransport({ cursor: 3, log: logEvents(1, 5) });
    const { sequencer } = transport;
    sequencer.liveEvent(published(logEvent(2)));
    sequencer.subscribed();
    assert.equal(transport.pendingRead?.afterSeq, 3);
    sequencer.liveEvent(published(logEvent(3)));
    transport.pendingRead = undefined;
    // A read answered with rows it was not asked for must not repeat them either.
    sequencer.logRead(logEvents(1, 5));
    sequencer.liveEvent(published(logEvent(1)));
    sequencer.liveEvent(published(logEvent(4)));
    assert.deepEqual(transport.sent, [4, 5]);
  });

  it('a live subscriber far behind reads the log at its own pace: live events wait in the log, not in memory, and none is lost or repeated', () => {
    const transport = new ScriptedTransport();
    const { sequencer } = transport;
    sequencer.subscribed();
    transport.answerRead();
    const [first, second, third] = transport.commit(logEvent(1), logEvent(2), logEvent(3));
    sequencer.liveEvent(first!);
    assert.deepEqual(transport.sent, [1]);
    transport.behind = true;
    sequencer.liveEvent(second!);
    sequencer.liveEvent(third!);
    assert.deepEqual(transport.sent, [1], 'nothing more is written while the client is behind');
    assert.equal(transport.waitingForClient, true);
    assert.equal(transport.pendingRead, undefined, 'and nothing is read');
    transport.behind = false;
    transport.clientTakes();
    assert.deepEqual(transport.requestedRead(), [1, 100]);
    const [fourth] = transport.commit(logEvent(4));
    transport.answerRead({ stale: true });
    sequencer.liveEvent(fourth!);
    assert.deepEqual(transport.sent, [1, 2, 3, 4]);
    assert.equal(sequencer.catchingUp, false);
    const [terminal] = transport.commit(logEvent(5, true));
    sequencer.liveEvent(terminal!);
    assert.deepEqual(transport.sent, [1, 2, 3, 4, 5]);
    assert.equal(transport.ended, true);
  });

  it('whatever the interleaving of log commits and live messages (late, repeated, out of order, lost) and of the client falling behind, it sends each event after the cursor exactly once, in order, then closes', () => {
    const command = fc.oneof(
      {
        arbitrary: fc.record({
          kind: fc.constant('commit' as const),
          fates: fc.array(messageFate, { minLength: 1 }),
        }),
        weight: 2,
      },
      { arbitrary: fc.record({ kind: fc.constant('deliver' as const), pick: fc.nat() }), weight: 4 },
      { arbitrary: fc.record({ kind: fc.constant('answer_read' as const), stale: fc.boolean() }), weight: 2 },
      { arbitrary: fc.constant({ kind: 'client_takes' as const }), weight: 1 },
      { arbitrary: fc.constant({ kind: 'heartbeat' as const }), weight: 1 },
      { arbitrary: fc.record({ kind: fc.constant('behind' as const), behind: fc.boolean() }), weight: 1 },
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 260 }),
        fc.nat(),
        fc.nat(),
        fc.array(command, { maxLength: 300, size: 'max' }),
        (total, committedPick, cursorPick, commands) => {
          const committedBefore = committedPick % (total + 1);
          const cursor = cursorPick % (committedBefore + 1);
          const all = logEvents(1, total, true);
          const transport = new ScriptedTransport({
            cursor,
            runEnded: committedBefore === total,
            log: all.slice(0, committedBefore),
          });
          const { sequencer } = transport;
          const inFlight: PublishedEvent[] = [];
          const commit = (fates: readonly MessageFate[]) => {
            const from = transport.log.length;
            const events = transport.commit(...all.slice(from, from + fates.length));
            events.forEach((event, index) => {
              const copies = fates[index] === 'lost' ? 0 : fates[index] === 'twice' ? 2 : 1;
              for (let copy = 0; copy < copies; copy++) inFlight.push(event);
            });
          };
          sequencer.subscribed();
          for (const step of commands) {
            if (step.kind === 'commit') commit(step.fates);
            else if (step.kind === 'deliver' && inFlight.length > 0) {
              sequencer.liveEvent(inFlight.splice(step.pick % inFlight.length, 1)[0]!);
            } else if (step.kind === 'answer_read' && transport.pendingRead) transport.answerRead(step);
            else if (step.kind === 'client_takes' && transport.waitingForClient) transport.clientTakes();
            else if (step.kind === 'heartbeat') sequencer.heartbeat();
            else if (step.kind === 'behind') transport.behind = step.behind;
            assert.deepEqual(transport.sent, seqs(cursor + 1, cursor + transport.sent.length));
          }
          // The run goes on to its end with every further live message lost: the log alone completes the stream.
          transport.behind = false;
          commit(Array.from({ length: total - transport.log.length }, () => 'lost'));
          for (let round = 0; round < 100 && !transport.ended; round++) {
            for (const event of inFlight.splice(0)) sequencer.liveEvent(event);
            if (transport.pendingRead) transport.answerRead();
            if (transport.waitingForClient) transport.clientTakes();
            sequencer.heartbeat();
          }
          assert.equal(transport.ended, true);
          assert.deepEqual(transport.sent, seqs(cursor + 1, total));
        },
      ),
      { numRuns: 300 },
    );
  });
});

type MessageFate = 'once' | 'twice' | 'lost';
const messageFate = fc.constantFrom<MessageFate>('once', 'twice', 'lost');
