import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import type { FakeProviderServer, ScriptedUsage } from '../fakes/scripted-reply.ts';
import { answerJson, startHttpToolServer, type HttpToolServer } from '../support/http-tool-server.ts';
import { moved, movedInAll, sample, scrape, type Labels, type Scrape } from '../support/prometheus-scrape.ts';
import { openSse, type SseFrame } from '../support/sse-client.ts';
import { jsonRequester, testServerAt } from '../support/test-server.ts';
import { eventually } from '../support/waits.ts';
import { provisionAcme, startCluster, type Cluster } from './cluster.ts';

const RUNS = 4;
/** Each run's turns: an HTTP tool call, a local tool call, then the reply; what the fake reports for each. */
const TURN_USAGE: [ScriptedUsage, ScriptedUsage, ScriptedUsage] = [
  { inputTokens: 10, outputTokens: 4 },
  { inputTokens: 15, outputTokens: 6 },
  { inputTokens: 20, outputTokens: 3 },
];
const MODEL = { provider: 'anthropic', model: 'fake-model' };

describe('scale-out metrics: each API and worker process counts its own part, on its own management port (extensions §2)', () => {
  let cluster: Cluster;
  let fake: FakeProviderServer;
  let tools: HttpToolServer;
  let headers: Record<string, string>;
  /** The management listener of each process: the APIs, then the workers. */
  let management: { name: string; role: 'api' | 'worker'; url: string }[];
  const ws = '/api/v1/workspaces/acme';
  const api = (index: number) => cluster.apis[index]?.baseUrl ?? '';
  const scrapeAll = () => Promise.all(management.map((process) => scrape(process.url)));

  /** A request to the API at `base` with the workspace key. */
  const call = (base: string, method: string, path: string, body?: unknown) =>
    jsonRequester(base)(method, path, { ...(body !== undefined && { body }), headers });

  before(async () => {
    fake = await startFakeAnthropic();
    tools = await startHttpToolServer();
    cluster = await startCluster({
      apis: 2,
      workers: 2,
      env: { AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8', AGENT_RUNS_METRICS_PORT: '0' },
    });
    management = await Promise.all(
      [
        ...cluster.apis.map((process) => ({ process, role: 'api' as const })),
        ...cluster.workers.map((process) => ({ process, role: 'worker' as const })),
      ].map(async ({ process, role }) => {
        const [, url] = await process.waitFor(/metrics listening on (http:\/\/\S+)/);
        assert.ok(url);
        return { name: process.name, role, url };
      }),
    );
    headers = { authorization: `Bearer ${await provisionAcme(api(0), cluster.adminToken, fake.url)}` };
  });
  after(async () => {
    await cluster?.stop();
    await fake?.close();
    await tools?.close();
  });

  it('summed over the processes, counters move by exactly the runs, model calls, tokens and tool calls made: runs created on the APIs, executed on the workers, client tool calls where their results were posted', async () => {
    assert.equal(new Set(management.map((process) => process.url)).size, 4, 'a port of its own each');
    tools.route('/weather', answerJson({ forecast: 'sunny' }));
    const tool = await testServerAt(api(0), cluster.adminToken).admin('POST', '/workspaces/acme/tools', {
      name: 'weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      http: { url: tools.url('/weather'), method: 'POST' },
    });
    assert.equal(tool.status, 201, JSON.stringify(tool.body));
    const toolId = tool.body.id as string;
    const before = await scrapeAll();

    // One run after the other (the fake answers in order): created on one API, streamed from the
    // other, and its local tool result posted there too.
    for (let index = 0; index < RUNS; index++) {
      fake.enqueue(
        {
          toolCalls: [{ id: `toolu_w${index}`, name: 'weather', input: { city: 'Paris' } }],
          usage: TURN_USAGE[0],
        },
        { toolCalls: [{ id: `toolu_l${index}`, name: 'lookup', input: {} }], usage: TURN_USAGE[1] },
        { text: ['Sunny.'], usage: TURN_USAGE[2] },
      );
      const created = await call(api(index % 2), 'POST', `${ws}/agent-runs`, {
        systemPrompt: 's',
        prompt: 'weather?',
        tools: [
          { kind: 'svc', id: toolId },
          { kind: 'local', name: 'lookup', parameters: { type: 'object', properties: {} } },
        ],
      });
      assert.equal(created.status, 202);
      const other = api((index + 1) % 2);
      const stream = await openSse(`${other}${created.body.streamUrl}`, headers);
      const frames: SseFrame[] = [];
      for await (const frame of stream.frames) {
        frames.push(frame);
        if (frame.data.type !== 'local_tool_call') continue;
        const posted = await call(other, 'POST', `${ws}/agent-runs/${created.body.runId}/tool-results`, {
          toolUseId: frame.data.data.toolUseId,
          result: 'found',
        });
        assert.equal(posted.status, 200);
      }
      assert.equal(frames.at(-1)?.data.type, 'result', JSON.stringify(frames.at(-1)?.data));
    }

    // A worker counts a finished run once its terminal event is written: the stream may end first.
    const finished = { workspace: 'acme', status: 'succeeded' };
    await eventually(
      async () => movedInAll(before, await scrapeAll(), 'agent_runs_runs_finished_total', finished) === RUNS,
      'every finished run is counted',
    );
    const after = await scrapeAll();
    /** How a sample moved on each process, by process name. */
    const perProcess = (name: string, labels: Labels = {}) =>
      Object.fromEntries(
        management.map(({ name: process }, index) => [
          process,
          moved(before[index]!, after[index]!, name, labels),
        ]),
      );
    const byRole = (role: 'api' | 'worker', name: string, labels: Labels = {}) =>
      management.reduce(
        (sum, process, index) =>
          process.role === role ? sum + moved(before[index]!, after[index]!, name, labels) : sum,
        0,
      );
    const total = (name: string, labels: Labels = {}) => movedInAll(before, after, name, labels);

    // Runs are created by the API that took the request: two each.
    assert.deepEqual(perProcess('agent_runs_runs_created_total', { workspace: 'acme' }), {
      api1: 2,
      api2: 2,
      worker1: 0,
      worker2: 0,
    });
    // Executed, finished, model calls and tokens: on the workers only.
    const onWorkers = (name: string, labels: Labels, expected: number) => {
      assert.equal(total(name, labels), expected, `${name} ${JSON.stringify(labels)}`);
      assert.equal(byRole('worker', name, labels), expected, `${name} is counted by the workers`);
    };
    onWorkers('agent_runs_runs_finished_total', finished, RUNS);
    onWorkers('agent_runs_run_duration_seconds', { status: 'succeeded' }, RUNS);
    onWorkers('agent_runs_run_queue_wait_seconds', {}, RUNS);
    onWorkers('agent_runs_model_calls_total', { ...MODEL, outcome: 'ok' }, 3 * RUNS);
    onWorkers('agent_runs_model_call_duration_seconds', { provider: 'anthropic' }, 3 * RUNS);
    const sum = (field: 'inputTokens' | 'outputTokens') =>
      RUNS * TURN_USAGE.reduce((tokens, usage) => tokens + (usage[field] ?? 0), 0);
    onWorkers('agent_runs_tokens_total', { ...MODEL, type: 'input' }, sum('inputTokens'));
    onWorkers('agent_runs_tokens_total', { ...MODEL, type: 'output' }, sum('outputTokens'));
    onWorkers('agent_runs_tool_calls_total', { kind: 'svc', outcome: 'ok' }, RUNS);
    onWorkers('agent_runs_tool_call_duration_seconds', { kind: 'svc' }, RUNS);
    // A client tool call is counted by the API its result was posted to, once: two on each.
    assert.deepEqual(perProcess('agent_runs_tool_calls_total', { kind: 'local', outcome: 'ok' }), {
      api1: 2,
      api2: 2,
      worker1: 0,
      worker2: 0,
    });
    assert.equal(total('agent_runs_tool_call_duration_seconds', { kind: 'local' }), RUNS);
    for (const outcome of ['error', 'timeout', 'cancelled']) {
      assert.equal(total('agent_runs_tool_calls_total', { kind: 'local', outcome }), 0, outcome);
      assert.equal(total('agent_runs_tool_calls_total', { kind: 'svc', outcome }), 0, outcome);
    }
    // Nothing is left executing or streaming anywhere once the streams ended.
    await eventually(async () => {
      const now = await scrapeAll();
      return now.every(
        (scraped: Scrape) =>
          sample(scraped, 'agent_runs_runs_executing') === 0 &&
          sample(scraped, 'agent_runs_sse_streams_open') === 0,
      );
    }, 'no run executing and no stream open on any process');
  });
});
