import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Queue } from 'bullmq';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { TEST_REDIS_URL } from '../support/engines.ts';
import { readAll } from '../support/sse-client.ts';
import { provisionAcme, startCluster, type Cluster } from './cluster.ts';

describe('scale-out: a run whose queued job Redis lost', () => {
  let cluster: Cluster;
  let fake: FakeProviderServer;
  let queue: Queue;
  let headers: Record<string, string>;

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
  after(async () => {
    await queue?.close();
    await cluster?.stop();
    await fake?.close();
  });

  it(
    'is queued again by a worker and completes (Redis restarted without persistence, or the API stopped before queueing it)',
    { timeout: 20_000 },
    async () => {
      const base = cluster.apis[0]!.baseUrl!;
      const response = await fetch(`${base}/api/v1/workspaces/acme/agent-runs`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ systemPrompt: 's', prompt: 'p' }),
      });
      assert.equal(response.status, 202);
      const { runId, streamUrl } = (await response.json()) as { runId: string; streamUrl: string };
      assert.equal(await queue.getJobState(runId), 'waiting');
      await queue.remove(runId);
      assert.equal(await queue.getJobState(runId), 'unknown', 'the job is gone from Redis');

      const worker = await cluster.startWorker('worker1');
      const frames = await readAll(`${base}${streamUrl}`, headers);
      assert.equal(frames.at(-1)?.data.type, 'result');
      assert.deepEqual(
        frames.map((frame) => frame.data.seq),
        frames.map((_, index) => index + 1),
      );
      assert.match(worker.stdout, /queued again runs whose job was lost/);
      assert.ok(worker.stdout.includes(runId));
    },
  );
});
