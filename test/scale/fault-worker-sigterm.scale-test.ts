import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCluster, type Cluster, type ServiceProcess } from './cluster.ts';
import {
  extraExecutions,
  keepLogs,
  startWorkload,
  unexpectedExits,
  verifyRuns,
  type RunClient,
  type Workload,
} from './fault-workload.ts';
import { startPrivatePostgres, startPrivateRedis, type PrivateServer } from './private-servers.ts';

const RUNS = 6;
const STAGGER_MS = 400;
/** Far above the 8 s shutdown grace: a run handed over by a stop must not wait for its lease to lapse. */
const LEASE_MS = 30_000;
/** A 12 s reply, longer than the grace, so the stopping worker hands runs over mid-reply. */
const REPLY_WORDS = 120;

/** `"run started"` lines of `process` for `runId` after `since`, with their time. */
function startsOf(process: ServiceProcess, runId: string, since: number): number[] {
  return process.stdout
    .split('\n')
    .filter((line) => line.includes('"msg":"run started"') && line.includes(`"runId":"${runId}"`))
    .map((line) => (JSON.parse(line) as { time: number }).time)
    .filter((time) => time >= since);
}

describe('fault: a worker SIGTERMed mid-run drains', () => {
  let postgres: PrivateServer;
  let redis: PrivateServer;
  let cluster: Cluster;
  let workload: Workload;

  before(async () => {
    postgres = await startPrivatePostgres();
    redis = await startPrivateRedis();
    cluster = await startCluster({
      apis: 2,
      workers: 2,
      leaseMs: LEASE_MS,
      databaseUrl: postgres.url,
      redisUrl: redis.url,
      env: { AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8' },
    });
    workload = await startWorkload(cluster, { replyWords: REPLY_WORDS });
  });
  after(async () => {
    keepLogs(cluster, 'fault-worker-sigterm');
    await workload?.close();
    await cluster?.stop();
    await redis?.destroy();
    await postgres?.destroy();
  });

  it('its runs go on on the other worker within seconds (not after the lease), exactly once, and it exits 0', async (t) => {
    const apis = cluster.apis.map((api) => api.baseUrl ?? '');
    const clients: RunClient[] = [];
    for (let index = 0; index < RUNS; index++) {
      const created = await workload.createRun(apis[index % 2] ?? '');
      assert.ok(created.runId, `run ${index} accepted`);
      clients.push(workload.follow(created.runId, apis[(index + 1) % 2] ?? ''));
      await sleep(STAGGER_MS);
    }
    // Every run streams its long reply (its client tool answered) before the stop.
    await Promise.all(clients.map((client) => client.seen(12)));
    const [stopped, other] = cluster.workers as [ServiceProcess, ServiceProcess];
    // The runs the stopping worker holds: the last execution of each was there.
    const held = clients.filter((client) => {
      const here = startsOf(stopped, client.runId, 0).at(-1) ?? 0;
      const there = startsOf(other, client.runId, 0).at(-1) ?? 0;
      return here > there;
    });
    const stoppedAt = Date.now();
    const exitCode = await stopped.kill('SIGTERM');
    const exitedAt = Date.now();
    await Promise.all(clients.map((client) => client.ended));
    const handoverMs = held.map((client) => {
      const resumed = startsOf(other, client.runId, stoppedAt)[0];
      return resumed === undefined ? Infinity : resumed - stoppedAt;
    });

    const all = clients;
    const figures = await verifyRuns(workload, all, apis[0] ?? '');
    const report = {
      ...figures,
      runsHandedOver: held.length,
      msToStop: exitedAt - stoppedAt,
      maxMsToContinueElsewhere: Math.max(0, ...handoverMs),
      leaseMs: LEASE_MS,
      requests: workload.traffic.requests,
      answers5xx: workload.traffic.count((status) => status >= 500),
      takeovers: extraExecutions(
        cluster,
        all.map((client) => client.runId),
      ),
      unexpectedExits: unexpectedExits(cluster, [stopped]),
    };
    t.diagnostic(`fault figures: ${JSON.stringify(report)}`);
    assert.equal(exitCode, 0, 'the stopped worker exited 0');
    assert.deepEqual(report.unexpectedExits, [], 'no other process exited');
    assert.ok(held.length > 0, 'the stopped worker held runs');
    assert.ok(
      report.maxMsToContinueElsewhere < LEASE_MS,
      `the runs went on elsewhere ${report.maxMsToContinueElsewhere} ms after the stop`,
    );
    assert.equal(figures.eventsLost, 0, 'events lost');
    assert.equal(figures.eventsDuplicated, 0, 'events duplicated');
    assert.equal(figures.gaps, 0, 'gaps in a stream');
    assert.equal(figures.toolsExecutedTwice, 0, 'server tools executed twice');
    assert.equal(figures.localToolCallsDeliveredTwice, 0, 'client tool calls delivered twice');
    assert.deepEqual(figures.notSucceeded, [], 'every run succeeded');
    assert.equal(report.answers5xx, 0, `5xx answers: ${workload.traffic.unexpected.join('\n')}`);
  });
});
