import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCluster, type Cluster } from './cluster.ts';
import { keepLogs, startWorkload, type Workload } from './fault-workload.ts';
import { startPrivatePostgres, startPrivateRedis, type PrivateServer } from './private-servers.ts';
import { storeOutageTrial } from './store-outage-trial.ts';

describe('fault: PostgreSQL stopped (pg_ctl stop -m fast) for a few seconds mid-run, then started again', () => {
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
    keepLogs(cluster, 'fault-postgres');
    await workload?.close();
    await cluster?.stop();
    await redis?.destroy();
    await postgres?.destroy();
  });

  it('every run in flight completes, streams resume gap-free, no tool runs or is delivered twice, the API answers 503 with Retry-After meanwhile and never 500, /readyz says 503 database unavailable within a second, no process exits', async (t) => {
    const report = await storeOutageTrial({
      cluster,
      workload,
      store: postgres,
      check: 'database',
      outageMs: 3000,
    });
    t.diagnostic(`fault figures: ${JSON.stringify(report)}`);
    assert.deepEqual(report.unexpectedExits, [], 'no process exited');
    assert.equal(report.eventsLost, 0, 'events lost');
    assert.equal(report.eventsDuplicated, 0, 'events duplicated');
    assert.equal(report.gaps, 0, 'gaps in a stream');
    assert.equal(report.toolsExecutedTwice, 0, 'server tools executed twice');
    assert.equal(report.localToolCallsDeliveredTwice, 0, 'client tool calls delivered twice');
    assert.deepEqual(report.notSucceeded, [], 'every run succeeded');
    assert.equal(report.answers5xxOther, 0, `500 answers: ${report.unexpectedAnswers.join('\n')}`);
    assert.equal(report.missingRetryAfter, 0, '503 answers without Retry-After');
    assert.ok(report.answers503 > 0, 'requests during the outage were answered 503');
    assert.ok(
      report.msToNotReady <= 1500,
      `/readyz said unavailable ${report.msToNotReady} ms after the stop`,
    );
  });
});
