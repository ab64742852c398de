import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import type { RunJob } from '../../src/engine/ports.ts';
import { InProcessRunQueue } from '../../src/infra/in-process-queue.ts';

describe('the embedded run queue', () => {
  it('runs at most `concurrency` jobs at once, in order', async () => {
    const queue = new InProcessRunQueue({ concurrency: 2 });
    const started: string[] = [];
    let running = 0;
    let peak = 0;
    queue.consume(async (job) => {
      started.push(job.runId);
      peak = Math.max(peak, ++running);
      await sleep(20);
      running--;
      return 'done';
    });
    for (const runId of ['a', 'b', 'c', 'd']) await queue.enqueue({ runId });
    await sleep(100);
    assert.deepEqual(started, ['a', 'b', 'c', 'd']);
    assert.equal(peak, 2);
    await queue.close();
  });

  it('a job whose handler fails runs again after the retry delay (its run is not left without an end)', async () => {
    const queue = new InProcessRunQueue({ concurrency: 4, retryDelayMs: 50 });
    const attempts: number[] = [];
    const started = Date.now();
    queue.consume(async (job: RunJob) => {
      attempts.push(Date.now() - started);
      if (attempts.length === 1) throw new Error(`storage unreachable while running ${job.runId}`);
      return 'done';
    });
    await queue.enqueue({ runId: 'run_1' });
    for (let waited = 0; attempts.length < 2 && waited < 2000; waited += 10) await sleep(10);
    assert.equal(attempts.length, 2);
    assert.ok(attempts[1]! - attempts[0]! >= 45, `retried after ${attempts[1]! - attempts[0]!} ms`);
    await sleep(100);
    assert.equal(attempts.length, 2, 'once it succeeds, it does not run again');
    await queue.close();
  });

  it('closing cancels the retries still waiting', async () => {
    const queue = new InProcessRunQueue({ concurrency: 1, retryDelayMs: 30 });
    let attempts = 0;
    queue.consume(async () => {
      attempts++;
      throw new Error('failing');
    });
    await queue.enqueue({ runId: 'run_2' });
    await sleep(10);
    await queue.close();
    await sleep(80);
    assert.equal(attempts, 1);
  });
});
