import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { followRunEvents, type FollowedRunEvent } from '../../src/engine/log/run-event-follower.ts';
import { REPLAY_PAGE } from '../../src/engine/log/sse-sequencer.ts';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import type { SseFrame } from '../support/sse-client.ts';
import { deferred, WAIT_CAP_MS, withCap } from '../support/waits.ts';

const words = (count: number) => Array.from({ length: count }, (_, index) => `w${index} `);

/** What a follower yields, to compare with the SSE frames of the same run. */
const asFrames = (events: readonly FollowedRunEvent[]) =>
  events.map((event) => ({ seq: event.seq, type: event.type, data: event.data }));
const ofSse = (frames: readonly SseFrame[]) =>
  frames.map((frame) => ({ seq: frame.data.seq, type: frame.data.type, data: frame.data.data }));

describe(
  "following a run's events inside the service (what the hosted A2A endpoint waits on)",
  { timeout: 60_000 },
  () => {
    let fixture: RunFixture;
    before(async () => {
      // A short heartbeat: an idle follower also looks in the log.
      fixture = await startRunFixture('anthropic-messages', { engine: { heartbeatMs: 50 } });
    });
    after(() => fixture.close());
    afterEach(() => fixture.cleanUp());

    const follow = (runId: string, afterSeq = 0, signal = new AbortController().signal) => {
      const { engine } = fixture.server.service.resources;
      const events: FollowedRunEvent[] = [];
      const done = (async () => {
        for await (const event of followRunEvents(
          runId,
          afterSeq,
          { store: engine.events, bus: engine.bus, heartbeatMs: engine.heartbeatMs },
          signal,
        ))
          events.push(event);
        return events;
      })();
      return withCap(done, WAIT_CAP_MS, () => `the follower did not end; got ${events.length} events`);
    };

    it('a run that has ended is replayed whole, over several log pages, in seq order, ending with its terminal event', async () => {
      fixture.fake.enqueue({ text: words(REPLAY_PAGE * 2 + 30) });
      const { runId, frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'long' });
      const followed = await follow(runId);
      assert.ok(followed.length > REPLAY_PAGE * 2);
      assert.deepEqual(asFrames(followed), ofSse(frames));
      assert.equal(followed.at(-1)?.type, 'result');
    });

    it('a live run is followed from the start with no event missed or repeated, and the follower ends after the terminal event', async () => {
      const release = deferred();
      fixture.fake.enqueue({ text: words(40), holdUntil: release.promise, holdAfterChunks: 5 });
      const run = await fixture.startRun({ systemPrompt: 's', prompt: 'live' });
      const followed = follow(run.runId);
      await run.waitForType('assistant_delta');
      release.resolve();
      const frames = await run.ended;
      assert.deepEqual(asFrames(await followed), ofSse(frames));
    });

    it('a follower starting after a seq gets only the events after it', async () => {
      fixture.fake.enqueue({ text: words(8) });
      const { runId, frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'resume' });
      const followed = await follow(runId, 4);
      assert.deepEqual(
        followed.map((event) => event.seq),
        frames.filter((frame) => frame.data.seq > 4).map((frame) => frame.data.seq),
      );
    });

    it("an abort ends the follow with the signal's reason", async () => {
      const release = deferred();
      fixture.fake.enqueue({ text: ['held'], holdUntil: release.promise });
      const run = await fixture.startRun({ systemPrompt: 's', prompt: 'wait' });
      const stop = new AbortController();
      const followed = follow(run.runId, 0, stop.signal);
      await fixture.fake.waitForRequests(1);
      stop.abort(new Error('the reader left'));
      await assert.rejects(followed, /the reader left/);
      release.resolve();
      await run.ended;
    });
  },
);
