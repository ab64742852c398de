import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import type { RunJob } from '../../src/engine/ports.ts';
import { InProcessRunQueue } from '../../src/infra/in-process-queue.ts';
import { deferred, WAIT_CAP_MS, withCap } from '../support/waits.ts';

describe('the embedded run queue', () => {
  it('runs at most `concurrency` jobs at once, in order', async () => {
    const queue = new InProcessRunQueue({ concurrency: 2 });
    try {
      const started: string[] = [];
      const allDone = deferred();
      let running = 0;
      let done = 0;
      let peak = 0;
      queue.consume(async (job) => {
        started.push(job.runId);
        peak = Math.max(peak, ++running);
        await sleep(20);
        running--;
        if (++done === 4) allDone.resolve();
        return 'done';
      });
      for (const runId of ['a', 'b', 'c', 'd']) await queue.enqueue({ runId });
      await withCap(allDone.promise, WAIT_CAP_MS, () => `only ${done} of 4 jobs done: ${started.join(',')}`);
      assert.deepEqual(started, ['a', 'b', 'c', 'd']);
      assert.equal(peak, 2);
    } finally {
      await queue.close();
    }
  });

  it('a job whose handler fails runs again after the retry delay (its run is not left without an end)', async () => {
    const queue = new InProcessRunQueue({ concurrency: 4, retryDelayMs: 50 });
    try {
      const attempts: number[] = [];
      const retried = deferred();
      const started = Date.now();
      queue.consume(async (job: RunJob) => {
        attempts.push(Date.now() - started);
        if (attempts.length === 2) retried.resolve();
        if (attempts.length === 1) throw new Error(`storage unreachable while running ${job.runId}`);
        return 'done';
      });
      await queue.enqueue({ runId: 'run_1' });
      await withCap(retried.promise, WAIT_CAP_MS, () => `${attempts.length} attempt(s), no retry`);
      assert.equal(attempts.length, 2);
      assert.ok(attempts[1]! - attempts[0]! >= 45, `retried after ${attempts[1]! - attempts[0]!} ms`);
      await sleep(100); // a negative check: a slower machine only makes it pass more easily
      assert.equal(attempts.length, 2, 'once it succeeds, it does not run again');
    } finally {
      await queue.close();
    }
  });

  it('closing cancels the retries still waiting', async () => {
    const queue = new InProcessRunQueue({ concurrency: 1, retryDelayMs: 30 });
    let attempts = 0;
    queue.consume(async () => {
      attempts++;
      throw new Error('failing');
    });
    await queue.enqueue({ runId: 'run_2' });
    // The first attempt ran inside enqueue and its failure scheduled the retry on the microtasks
    // since: one turn of the event loop is enough, however slow the machine.
    await new Promise((resolve) => setImmediate(resolve));
    await queue.close();
    await sleep(80); // a negative check: a slower machine only makes it pass more easily
    assert.equal(attempts, 1);
  });
});
