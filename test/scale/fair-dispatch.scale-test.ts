import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { mostInFlight, runLabelsInOrder } from '../support/provider-load.ts';
import { readAll } from '../support/sse-client.ts';
import { watchStream } from '../support/stream-watch.ts';
import { provisionAcme, startCluster, type Cluster } from './cluster.ts';

const WEATHER_TOOL = {
  kind: 'local',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('scale-out: workers shared fairly across processes', { timeout: 120_000 }, () => {
  let cluster: Cluster;
  let fake: FakeProviderServer;
  let headers: Record<string, string>;
  let base: string;

  before(async () => {
    fake = await startFakeAnthropic();
    // Two workers of one run slot each: a run that waited on a worker slot would starve the others.
    cluster = await startCluster({ apis: 1, workers: 2, env: { AGENT_RUNS_WORKER_CONCURRENCY: '1' } });
    base = cluster.apis[0]!.baseUrl!;
    headers = {
      authorization: `Bearer ${await provisionAcme(base, cluster.adminToken, fake.url)}`,
      'content-type': 'application/json',
    };
  });
  after(async () => {
    await cluster?.stop();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  async function admin(method: string, path: string, body: unknown) {
    const response = await fetch(`${base}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${cluster.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(response.status, 200, await response.clone().text());
  }

  async function createRun(body: Record<string, unknown>): Promise<string> {
    const response = await fetch(`${base}/api/v1/workspaces/acme/agent-runs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ systemPrompt: 's', ...body }),
    });
    assert.equal(response.status, 202);
    return ((await response.json()) as { runId: string }).runId;
  }

  const streamUrl = (runId: string) => `${base}/api/v1/workspaces/acme/agent-runs/${runId}/stream`;

  it('runs waiting for client tool results hold no worker: with every worker slot used by a waiting run, another run completes', async () => {
    await admin('PATCH', '/workspaces/acme', { maxConcurrentRuns: 100 });
    // Each reply is decided by its conversation, not by the order of the requests: a run whose worker
    // was starved past its lease (2 s) is taken over and asks the model again, and must get the same
    // reply, not the next run's (a worker stopped past its lease reproduces the 404 once seen under
    // load: the first run got the call queued for the second, not the one the test answered).
    fake.replyWith((body) => {
      const conversation = JSON.stringify(body);
      if (conversation.includes('tool_result')) return { text: ['Done.'] };
      const city = /weather in (\w+)/.exec(conversation)?.[1];
      if (city) return { toolCalls: [{ id: `call_${city}`, name: 'get_weather', input: { city } }] };
      return { text: ['Not waiting.'] };
    });
    const waiting = [];
    for (const city of ['Paris', 'Rome']) {
      const runId = await createRun({ prompt: `weather in ${city}?`, tools: [WEATHER_TOOL] });
      const watch = await watchStream(streamUrl(runId), headers, runId);
      const call = await watch.waitForType('local_tool_call', 30_000);
      waiting.push({ watch, toolUseId: call.data.data.toolUseId as string });
    }
    try {
      const frames = await readAll(streamUrl(await createRun({ prompt: 'hello' })), headers);
      assert.equal(frames.at(-1)?.data.data.text, 'Not waiting.');

      for (const { watch, toolUseId } of waiting) {
        const posted = await fetch(`${base}/api/v1/workspaces/acme/agent-runs/${watch.runId}/tool-results`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ toolUseId, result: 'sunny' }),
        });
        assert.equal(posted.status, 200, await posted.text());
      }
      for (const { watch } of waiting) {
        const ended = await watch.ended;
        assert.equal(ended.at(-1)?.data.type, 'result');
        assert.equal(ended.at(-1)?.data.data.text, 'Done.');
        assert.ok(ended.some((frame) => frame.data.type === 'local_tool_result_in'));
      }
    } finally {
      for (const { watch } of waiting) watch.close();
    }
  });

  it('maxConcurrentRuns holds across workers: the excess waits queued and starts in the order it came', async () => {
    await cluster.startWorker('worker3');
    /** Creates `count` runs, then reads each to its result. */
    const runAll = async (count: number) => {
      const runIds = [];
      for (let index = 0; index < count; index++) runIds.push(await createRun({ prompt: `run ${index}` }));
      for (const runId of runIds) {
        const frames = await readAll(streamUrl(runId), headers);
        assert.equal(frames.at(-1)?.data.type, 'result');
      }
    };
    // One at a time, the runs reach the provider in the order they were admitted.
    await admin('PATCH', '/workspaces/acme', { maxConcurrentRuns: 1 });
    fake.enqueue({ text: ['done'], firstChunkDelayMs: 100 });
    await runAll(4);
    assert.deepEqual(runLabelsInOrder(fake.requests), ['run 0', 'run 1', 'run 2', 'run 3']);
    assert.equal(mostInFlight(fake.requests), 1);

    fake.reset();
    await admin('PATCH', '/workspaces/acme', { maxConcurrentRuns: 2 });
    fake.enqueue({ text: ['done'], firstChunkDelayMs: 200 });
    await runAll(6);
    assert.equal(mostInFlight(fake.requests), 2, 'never more than two at once across the workers');
  });
});
