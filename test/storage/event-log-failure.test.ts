import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { ENGINES } from '../support/engines.ts';
import { refuseEventInserts } from '../support/refused-inserts.ts';
import { readAll } from '../support/sse-client.ts';
import { startRunFixture, textOf, type RunFixture } from '../support/run-fixture.ts';

for (const engine of ENGINES) {
  describe(`a failed event-log commit on ${engine}`, () => {
    let fixture: RunFixture;
    before(async () => {
      fixture = await startRunFixture('openai-chat', { storageEngine: engine });
      // A real write failure, what a dropped connection or a busy database does to one commit: the
      // insert of a run's fifth event, a delta, is refused; every other event is written. On
      // PostgreSQL the refusal comes after 100 ms, so the run's next deltas queue behind the failing commit.
      await refuseEventInserts(
        fixture.server.service.resources.storage,
        'refuse_fifth_delta',
        "new.seq = 5 and new.type = 'assistant_delta'",
        { pgDelaySeconds: 0.1 },
      );
    });
    after(() => fixture.close());
    afterEach(() => fixture.cleanUp());

    it(
      'leaves no hole in seq: the run ends with one worker_error right after its last durable event',
      { timeout: 15_000 },
      async () => {
        const reply = Array.from({ length: 60 }, (_, i) => `w${i} `);
        fixture.fake.enqueue({ text: reply, chunkIntervalMs: 2 });
        const { runId, frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'long' });
        // Read again from the log alone, as a client reconnecting from the start would.
        const replayed = await readAll(fixture.streamUrl(runId, '?lastSeq=0'), fixture.headers);
        assert.deepEqual(replayed, frames);
        const seqs = frames.map((frame) => frame.data.seq);
        assert.deepEqual(
          seqs,
          seqs.map((_, index) => index + 1),
          `seq runs 1, 2, 3, … with no gap (got ${seqs.join(',')})`,
        );
        const [terminal, ...others] = frames.filter((frame) => frame.data.type === 'error');
        assert.equal(others.length, 0, 'one terminal event');
        assert.equal(terminal, frames.at(-1));
        assert.equal(terminal!.data.data.code, 'worker_error');
        assert.ok(reply.join('').startsWith(textOf(frames)), 'the deltas before the failure, in order');
        assert.ok(
          terminal!.data.seq <= 5,
          'the terminal event takes the place of the refused one, at the latest',
        );
      },
    );
  });
}
