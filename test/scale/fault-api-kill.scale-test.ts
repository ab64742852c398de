import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { startCluster, type Cluster, type ServiceProcess } from './cluster.ts';
import {
  extraExecutions,
  keepLogs,
  keepRequesting,
  startWorkload,
  unexpectedExits,
  verifyRuns,
  type RunClient,
  type Workload,
} from './fault-workload.ts';
import { startPrivatePostgres, startPrivateRedis, type PrivateServer } from './private-servers.ts';

const RUNS = 6;
const STAGGER_MS = 600;

describe('fault: an API replica SIGKILLed while clients stream from it', () => {
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
      databaseUrl: postgres.url,
      redisUrl: redis.url,
      env: { AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8' },
    });
    workload = await startWorkload(cluster);
  });
  after(async () => {
    keepLogs(cluster, 'fault-api-kill');
    await workload?.close();
    await cluster?.stop();
    await redis?.destroy();
    await postgres?.destroy();
  });

  it('its clients resume on the other replica with Last-Event-ID and get every event exactly once; no 500, no other process exits', async (t) => {
    const [victim, survivor] = cluster.apis as [ServiceProcess, ServiceProcess];
    const clients: RunClient[] = [];
    for (let index = 0; index < RUNS; index++) {
      const created = await workload.createRun(survivor.baseUrl ?? '');
      assert.ok(created.runId, `run ${index} accepted`);
      clients.push(workload.follow(created.runId, victim.baseUrl ?? ''));
      await sleep(STAGGER_MS);
    }
    await clients[0]?.seen(10);

    const probes = new AbortController();
    const created: RunClient[] = [];
    const probing = keepRequesting(workload, cluster, {
      readRunId: clients[0]?.runId ?? '',
      stop: probes.signal,
      createEveryMs: 1000,
      onCreated: (client) => created.push(client),
    });
    const killedAt = Date.now();
    await victim.kill('SIGKILL');
    const open = clients.filter(
      (client) => !['result', 'error'].includes(client.frames.at(-1)?.data.type ?? ''),
    );
    await Promise.all(clients.map((client) => client.ended));
    probes.abort();
    await probing;
    await Promise.all(created.map((client) => client.ended));
    // How long each client still streaming at the kill waited for its next frame (from the survivor).
    const resumeMs = open.map((client) => {
      const next = client.frameTimes.find((time) => time > killedAt);
      return next === undefined ? 0 : next - killedAt;
    });

    const all = [...clients, ...created];
    const figures = await verifyRuns(workload, all, survivor.baseUrl ?? '');
    const { traffic } = workload;
    const report = {
      ...figures,
      streamsCutByTheKill: open.length,
      maxMsToResume: Math.max(0, ...resumeMs),
      requests: traffic.requests,
      answers503: traffic.count((status) => status === 503),
      answers5xxOther: traffic.count((status) => status >= 500 && status !== 503),
      connectionsRefusedOrCut: traffic.networkErrors,
      takeovers: extraExecutions(
        cluster,
        all.map((client) => client.runId),
      ),
      unexpectedExits: unexpectedExits(cluster, [victim]),
    };
    t.diagnostic(`fault figures: ${JSON.stringify(report)}`);
    assert.deepEqual(report.unexpectedExits, [], 'no other process exited');
    assert.ok(open.length > 0, 'streams were open on the killed replica');
    assert.ok(figures.reconnects >= open.length, 'every cut stream reconnected');
    assert.equal(figures.eventsLost, 0, 'events lost');
    assert.equal(figures.eventsDuplicated, 0, 'events duplicated');
    assert.equal(figures.gaps, 0, 'gaps in a stream');
    assert.equal(figures.toolsExecutedTwice, 0, 'server tools executed twice');
    assert.equal(figures.localToolCallsDeliveredTwice, 0, 'client tool calls delivered twice');
    assert.deepEqual(figures.notSucceeded, [], 'every run succeeded');
    assert.equal(report.answers5xxOther, 0, `500 answers: ${traffic.unexpected.join('\n')}`);
  });
});
