import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { eventually } from '../support/waits.ts';
import { WebhookReceiver } from '../webhooks/webhook-receiver.ts';
import { provisionAcme } from './cluster.ts';
import { startWorkerKillCluster, type WorkerKillCluster } from './worker-kill-cluster.ts';

const RUNS = 12;

describe('scale-out: webhook deliveries across two workers, one SIGKILLed with deliveries due', () => {
  let setup: WorkerKillCluster;
  let fake: FakeProviderServer;
  let receiver: WebhookReceiver;
  const call = (method: string, path: string, body?: unknown) => setup.call(method, path, body);

  before(async () => {
    fake = await startFakeAnthropic();
    receiver = await new WebhookReceiver().start();
    // The first attempt of each delivery fails and the retry comes 10 s later (long enough for every
    // run's first attempt to land first, on a loaded machine too): the kill lands once every first
    // attempt is recorded, while every delivery is pending and none is in flight.
    setup = await startWorkerKillCluster({
      env: { AGENT_RUNS_WEBHOOK_RETRY_SCHEDULE: '10000,10000,10000' },
      provision: (baseUrl, adminToken) => provisionAcme(baseUrl, adminToken, fake.url),
    });
  });
  after(async () => {
    await setup?.cluster.stop();
    await fake?.close();
    await receiver?.close();
  });

  it('0 lost, 0 doubled: each delivery is attempted exactly twice (one 500, one 200) under one webhook-id', async () => {
    const created = await call('POST', '/webhooks', { url: `${receiver.url}/hook` });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const firstSeen = new Set<string>();
    receiver.answerWith('/hook', created.body.secret, (attempt) => {
      const id = String(attempt?.headers['webhook-id']);
      if (firstSeen.has(id)) return 200;
      firstSeen.add(id);
      return 500;
    });
    fake.enqueue(...Array.from({ length: RUNS }, (_, index) => ({ text: [`reply ${index}`] })));
    const runIds: string[] = [];
    for (let index = 0; index < RUNS; index++) {
      const run = await call('POST', '/agent-runs', { systemPrompt: 's', prompt: `p${index}` });
      assert.equal(run.status, 202);
      runIds.push(run.body.runId);
    }
    await eventually(
      async () => {
        const log = (await call('GET', `/webhooks/${created.body.id}/deliveries?limit=100`)).body.deliveries;
        return log.length === RUNS && log.every((delivery: { attempts: number }) => delivery.attempts === 1);
      },
      `the first attempt of all ${RUNS} deliveries recorded`,
      { intervalMs: 20 },
    );
    assert.equal(receiver.at('/hook').length, RUNS, 'no retry has begun: the kill finds every delivery due');
    assert.equal(await setup.cluster.workers[0]!.kill('SIGKILL'), null);

    const ids = () => new Set(receiver.at('/hook').map((attempt) => String(attempt.headers['webhook-id'])));
    await eventually(() => receiver.at('/hook').length >= 2 * RUNS, `${2 * RUNS} attempts`, {
      intervalMs: 50,
    });
    let deliveries: Array<{ runId: string; status: string; attempts: number }> = [];
    await eventually(
      async () => {
        deliveries = (await call('GET', `/webhooks/${created.body.id}/deliveries?limit=100`)).body.deliveries;
        return deliveries.length === RUNS && deliveries.every((delivery) => delivery.status === 'succeeded');
      },
      'every delivery succeeded',
      { intervalMs: 100 },
    );
    assert.equal(receiver.unverified.length, 0, receiver.unverified.join('; '));
    assert.equal(ids().size, RUNS, 'one webhook-id per run');
    assert.equal(receiver.at('/hook').length, 2 * RUNS, 'no attempt doubled');
    assert.deepEqual(
      deliveries.map((delivery) => delivery.attempts),
      Array(RUNS).fill(2),
    );
    assert.deepEqual(
      deliveries.map((delivery) => delivery.runId).sort(),
      [...runIds].sort(),
      'one delivery per run: none lost',
    );
  });
});
