import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/waits.ts';
import { startCluster, type Cluster } from './cluster.ts';
import { gapsOf, jsonCall, provisionScheduling, scheduleRuns } from './schedule-cluster.ts';

const FIRES = 6;

describe('scale-out: a schedule every 2 s with two API replicas and two workers (extensions §8)', () => {
  let cluster: Cluster;
  let headers: Record<string, string>;
  let echoAgentId: string;
  const ws = (index: number) => `${cluster.apis[index]!.baseUrl!}/api/v1/workspaces/acme`;

  before(async () => {
    // Both workers poll every 100 ms: they race for every time.
    cluster = await startCluster({ apis: 2, workers: 2, env: { AGENT_RUNS_SCHEDULE_POLL_MS: '100' } });
    const provisioned = await provisionScheduling(cluster.apis[0]!.baseUrl!, cluster.adminToken);
    headers = { authorization: `Bearer ${provisioned.key}` };
    echoAgentId = provisioned.echoAgentId;
  });
  after(() => cluster?.stop());

  it('each scheduled time fires exactly once: one run per time, no time missed, none doubled', async () => {
    const created = await jsonCall(`${ws(0)}/schedules`, 'POST', headers, {
      agentId: echoAgentId,
      cron: '*/2 * * * * *',
      prompt: 'tick',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id as string;
    let runs: Awaited<ReturnType<typeof scheduleRuns>> = [];
    await eventually(
      async () => {
        runs = await scheduleRuns(ws(1), headers, id);
        return runs.length >= FIRES;
      },
      `${FIRES} fires`,
      { intervalMs: 200 },
    );
    assert.equal((await jsonCall(`${ws(1)}/schedules/${id}`, 'DELETE', headers)).status, 204);
    runs = await scheduleRuns(ws(0), headers, id).catch(() => runs);
    const tagged = await jsonCall(
      `${ws(0)}/agent-runs?limit=100&metadata=${encodeURIComponent(`scheduleId:${id}`)}`,
      'GET',
      headers,
    );
    const taggedIds = (tagged.body.runs as Array<{ runId: string }>).map((run) => run.runId).sort();
    assert.deepEqual(
      gapsOf(runs),
      gapsOf(runs).map(() => 2000),
      'every time once, none missed',
    );
    assert.equal(new Set(runs.map((run) => run.runId)).size, runs.length);
    assert.deepEqual(taggedIds, runs.map((run) => run.runId).sort(), 'no run beyond one per time');
    const fired = cluster.workers.map((worker) => worker.stdout.split('schedule fired').length - 1);
    assert.equal(
      fired.reduce((sum, count) => sum + count, 0),
      runs.length,
      `fires logged by the workers: ${fired.join(' + ')}`,
    );
  });
});
