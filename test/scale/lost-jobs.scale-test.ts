import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Queue, Worker } from 'bullmq';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { TEST_REDIS_URL } from '../support/engines.ts';
import { readAll } from '../support/sse-client.ts';
import { eventually, WAIT_CAP_MS } from '../support/waits.ts';
import { provisionAcme, startCluster, type Cluster, type ServiceProcess } from './cluster.ts';

/**
 * Each test starts a worker process and waits for a sweep: a cap of two waits, not a tight clock (on
 * one loaded core a worker's start alone took longer than the 20 s these tests once allowed).
 */
const TEST_CAP_MS = 2 * WAIT_CAP_MS;

describe('scale-out: a run whose queued job Redis lost', () => {
  let cluster: Cluster;
  let fake: FakeProviderServer;
  let queue: Queue;
  let headers: Record<string, string>;
  let firstWorker: ServiceProcess | undefined;

  before(async () => {
    fake = await startFakeAnthropic();
    // No worker yet: created runs wait in the queue. A 1 s lease: workers sweep every 2 s.
    cluster = await startCluster({ apis: 1, workers: 0, leaseMs: 1000 });
    headers = {
      authorization: `Bearer ${await provisionAcme(cluster.apis[0]!.baseUrl!, cluster.adminToken, fake.url)}`,
    };
    queue = new Queue('agent-runs', {
      prefix: cluster.env.AGENT_RUNS_REDIS_PREFIX!,
      connection: { url: TEST_REDIS_URL },
    });
  });
  /** The BullMQ job of a run's first admission (one job per admission). */
  const firstJobOf = (runId: string) => `${runId}-1`;

  /** Creates a run through the API process; returns its id and the stream's full URL. */
  async function createRun(): Promise<{ runId: string; streamUrl: string }> {
    const base = cluster.apis[0]!.baseUrl!;
    const response = await fetch(`${base}/api/v1/workspaces/acme/agent-runs`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ systemPrompt: 's', prompt: 'p' }),
    });
    assert.equal(response.status, 202);
    const created = (await response.json()) as { runId: string; streamUrl: string };
    return { runId: created.runId, streamUrl: `${base}${created.streamUrl}` };
  }

  after(async () => {
    await queue?.close();
    await cluster?.stop();
    await fake?.close();
  });

  it(
    'is queued again by a worker and completes (Redis restarted without persistence, or the API stopped before queueing it)',
    { timeout: TEST_CAP_MS },
    async () => {
      const { runId, streamUrl } = await createRun();
      assert.equal(await queue.getJobState(firstJobOf(runId)), 'waiting');
      await queue.remove(firstJobOf(runId));
      assert.equal(await queue.getJobState(firstJobOf(runId)), 'unknown', 'the job is gone from Redis');

      const worker = await cluster.startWorker('worker1');
      firstWorker = worker;
      const frames = await readAll(streamUrl, headers);
      assert.equal(frames.at(-1)?.data.type, 'result');
      assert.deepEqual(
        frames.map((frame) => frame.data.seq),
        frames.map((_, index) => index + 1),
      );
      assert.match(worker.stdout, /queued again runs whose job was lost/);
      assert.ok(worker.stdout.includes(runId));
    },
  );

  it(
    'whose job failed for good (its worker could not even end it) is queued again and completes',
    { timeout: TEST_CAP_MS },
    async () => {
      // No worker for now: the one the previous test started is stopped.
      await firstWorker?.kill('SIGKILL');
      const { runId, streamUrl } = await createRun();
      // A BullMQ worker of the test's own takes the job and fails it, as a worker does when it cannot
      // even write the run's end: the job sits in BullMQ's failed set and the run has no end.
      const failing = new Worker(
        'agent-runs',
        async () => {
          throw new Error('storage unreachable');
        },
        { prefix: cluster.env.AGENT_RUNS_REDIS_PREFIX!, connection: { url: TEST_REDIS_URL } },
      );
      await eventually(
        async () => (await queue.getJobState(firstJobOf(runId))) === 'failed',
        'the job failed for good',
        {
          intervalMs: 50,
        },
      );
      await failing.close();
      assert.equal(await queue.getJobState(firstJobOf(runId)), 'failed');

      await cluster.startWorker('worker2');
      const frames = await readAll(streamUrl, headers);
      assert.equal(frames.at(-1)?.data.type, 'result');
    },
  );
});
