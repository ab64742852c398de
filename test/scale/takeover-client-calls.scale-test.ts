import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { watchStream } from '../support/stream-watch.ts';
import { eventually } from '../support/waits.ts';
import { provisionAcme, startCluster, type Cluster } from './cluster.ts';

const WEATHER_TOOL = {
  kind: 'local',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/**
 * A worker starved past its lease while it stores a run's pending client calls (seen under load in
 * the fair-dispatch test: the run ended `assistant_message`, `error`). Its insert is held by a lock
 * on `tool_calls` and the worker stopped (SIGSTOP) until the takeover reaches the database; then
 * both go on.
 */
describe(
  'scale-out: a takeover while the first worker stores its pending client calls',
  { timeout: 120_000 },
  () => {
    let cluster: Cluster;
    let fake: FakeProviderServer;
    let headers: Record<string, string>;
    let base: string;
    /** Holds the lock on `tool_calls` in its transaction. */
    let locker: pg.Client;
    /** Reads who waits (outside that transaction: its statistics would be a snapshot taken once). */
    let monitor: pg.Client;

    before(async () => {
      fake = await startFakeAnthropic();
      cluster = await startCluster({ apis: 1, workers: 2, env: { AGENT_RUNS_WORKER_CONCURRENCY: '1' } });
      base = cluster.apis[0]!.baseUrl!;
      headers = {
        authorization: `Bearer ${await provisionAcme(base, cluster.adminToken, fake.url)}`,
        'content-type': 'application/json',
      };
      locker = new pg.Client({ connectionString: cluster.env.DATABASE_URL });
      monitor = new pg.Client({ connectionString: cluster.env.DATABASE_URL });
      await Promise.all([locker.connect(), monitor.connect()]);
    });
    after(async () => {
      for (const worker of cluster?.workers ?? []) worker.child.kill('SIGCONT');
      await locker?.end();
      await monitor?.end();
      await cluster?.stop();
      await fake?.close();
    });

    /** Statements of the cluster's processes now waiting for a lock. */
    async function lockWaits(): Promise<string[]> {
      const { rows } = await monitor.query<{ query: string }>(
        `select query from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock'`,
      );
      return rows.map((row) => row.query);
    }
    const isCallInsert = (query: string) => /^insert into "tool_calls"/i.test(query);
    const isClaim = (query: string) => /^update "runs" set "attempt"/i.test(query);

    it('the run the new attempt took over publishes its call once and finishes: the late worker stores nothing in its way', async () => {
      fake.replyWith((body) =>
        JSON.stringify(body).includes('tool_result')
          ? { text: ['Done.'] }
          : { toolCalls: [{ id: 'call_paris', name: 'get_weather', input: { city: 'Paris' } }] },
      );
      await locker.query('begin');
      await locker.query('lock table tool_calls in exclusive mode');
      let locked = true;
      try {
        const created = await fetch(`${base}/api/v1/workspaces/acme/agent-runs`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ systemPrompt: 's', prompt: 'weather in Paris?', tools: [WEATHER_TOOL] }),
        });
        assert.equal(created.status, 202);
        const { runId } = (await created.json()) as { runId: string };
        const watch = await watchStream(
          `${base}/api/v1/workspaces/acme/agent-runs/${runId}/stream`,
          headers,
          runId,
        );
        try {
          await eventually(
            async () => (await lockWaits()).some(isCallInsert),
            'the first worker stores the call',
          );
          // The worker that started the run says so in its log (written asynchronously).
          const startedIt = () => cluster.workers.find((worker) => worker.stdout.includes(runId));
          await eventually(() => startedIt() !== undefined, 'the worker that started the run logs it');
          const first = startedIt()!;
          first.child.kill('SIGSTOP');
          // The lease (2 s) lapses and the other worker takes the run over: it claims the run (waiting
          // for the first worker's insert, once that is fenced) or stores the call itself.
          await eventually(async () => {
            const waits = await lockWaits();
            return waits.some(isClaim) || waits.filter(isCallInsert).length >= 2;
          }, 'the takeover reaches the database');
          await locker.query('commit');
          locked = false;
          first.child.kill('SIGCONT');

          const call = await watch.waitForType('local_tool_call');
          assert.equal(call.data.data.toolUseId, 'call_paris');
          const posted = await fetch(`${base}/api/v1/workspaces/acme/agent-runs/${runId}/tool-results`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ toolUseId: 'call_paris', result: 'sunny' }),
          });
          assert.equal(posted.status, 200, await posted.text());
          const frames = await watch.ended;
          assert.deepEqual(
            frames.map((frame) => frame.data.type),
            [
              'assistant_message',
              'local_tool_call',
              'local_tool_result_in',
              'assistant_delta',
              'assistant_message',
              'result',
            ],
          );
          assert.equal(frames.at(-1)?.data.data.text, 'Done.');
        } finally {
          watch.close();
        }
      } finally {
        if (locked) await locker.query('rollback');
      }
    });
  },
);
