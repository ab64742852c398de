import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { PrometheusFamily } from 'parse-prometheus-text-format';
import { createAgent, endpointPath, sendBody } from '../a2a/a2a-support.ts';
import { SCALE_OUT } from '../support/deployment.ts';
import { answerJson, startHttpToolServer, type HttpToolServer } from '../support/http-tool-server.ts';
import {
  moved,
  movedInAll,
  parsed,
  sample,
  scrape,
  seriesMoved,
  type Scrape,
} from '../support/prometheus-scrape.ts';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { bearer, createWorkspaceWithKey, startTestServer } from '../support/test-server.ts';
import { readAll } from '../support/sse-client.ts';
import { deferred, eventually } from '../support/waits.ts';

const LOOPBACK = { AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8,::1/128' };

/** Every metric of extensions §2's table, with its type. */
const TABLE: Record<string, PrometheusFamily['type']> = {
  agent_runs_runs_created_total: 'COUNTER',
  agent_runs_runs_finished_total: 'COUNTER',
  agent_runs_runs_executing: 'GAUGE',
  agent_runs_run_queue_wait_seconds: 'HISTOGRAM',
  agent_runs_run_duration_seconds: 'HISTOGRAM',
  agent_runs_model_calls_total: 'COUNTER',
  agent_runs_model_time_to_first_token_seconds: 'HISTOGRAM',
  agent_runs_model_call_duration_seconds: 'HISTOGRAM',
  agent_runs_tokens_total: 'COUNTER',
  agent_runs_tool_calls_total: 'COUNTER',
  agent_runs_tool_call_duration_seconds: 'HISTOGRAM',
  agent_runs_sse_streams_open: 'GAUGE',
  agent_runs_rate_limited_total: 'COUNTER',
  agent_runs_http_requests_total: 'COUNTER',
  agent_runs_http_request_duration_seconds: 'HISTOGRAM',
  agent_runs_webhook_deliveries_total: 'COUNTER',
  agent_runs_scheduled_runs_total: 'COUNTER',
};

async function scrapeText(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { headers });
}

describe('Prometheus metrics', { timeout: 120_000 }, () => {
  let fixture: RunFixture;
  let tools: HttpToolServer;
  /** The API's metrics, through GET /metrics with the admin token. */
  let scrapeApi: () => Promise<Scrape>;
  /** The metrics of the process that executes runs (scale-out: the worker's management listener). */
  let scrapeWorker: () => Promise<Scrape>;
  /** The metrics of each process once (embedded: the one process; scale-out: the API, then the worker). */
  let scrapeEach: () => Promise<Scrape[]>;
  before(async () => {
    tools = await startHttpToolServer();
    fixture = await startRunFixture('openai-chat', { env: { ...LOOPBACK, AGENT_RUNS_METRICS_PORT: '0' } });
    const { server } = fixture;
    scrapeApi = () => scrape(server.baseUrl, bearer(server.adminToken));
    // Scale-out: the worker process executes runs, and its counts are on its own management listener.
    assert.equal(server.workerMetricsUrl !== undefined, SCALE_OUT);
    const executing = server.workerMetricsUrl ?? server.managementUrl;
    assert.ok(executing, 'AGENT_RUNS_METRICS_PORT opens a management listener');
    scrapeWorker = () => scrape(executing);
    scrapeEach = async () =>
      server.workerMetricsUrl === undefined ? [await scrapeApi()] : [await scrapeApi(), await scrapeWorker()];
  });
  after(async () => {
    await fixture.close();
    await tools.close();
  });
  afterEach(() => fixture.cleanUp());

  it('GET /metrics answers the text format with every metric of the table, the process metrics, and the unbuilt counters at 0', async () => {
    const response = await scrapeText(`${fixture.server.baseUrl}/metrics`, bearer(fixture.server.adminToken));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    const scrape = parsed(await response.text());
    for (const [name, type] of Object.entries(TABLE)) {
      assert.equal(scrape.families.find((family) => family.name === name)?.type, type, name);
    }
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      assert.ok(
        scrape.families.some((family) => family.name === name),
        name,
      );
    }
    assert.equal(sample(scrape, 'agent_runs_scheduled_runs_total'), 0);
    assert.equal(sample(scrape, 'agent_runs_webhook_deliveries_total'), 0);
  });

  it('counters move by exactly the run, the model calls, the tokens and the tool call the test made', async () => {
    tools.route('/weather', answerJson({ forecast: 'sunny' }));
    const created = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/tools`, {
      name: 'weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      http: { url: tools.url('/weather'), method: 'POST' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const apiBefore = await scrapeApi();
    const workerBefore = await scrapeWorker();
    fixture.fake.enqueue(
      {
        toolCalls: [{ id: 'call_w', name: 'weather', input: { city: 'Paris' } }],
        usage: { inputTokens: 11, outputTokens: 7 },
      },
      { text: ['Sunny.'], usage: { inputTokens: 13, outputTokens: 5, cachedTokens: 3 } },
    );
    const { runId } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'weather?',
      tools: [{ kind: 'svc', id: created.body.id }],
    });

    const model = { provider: 'fakeopenai', model: 'fake-model' };
    // The worker counts a finished run once its terminal event is written: the stream may end first.
    await eventually(
      async () =>
        moved(workerBefore, await scrapeWorker(), 'agent_runs_runs_finished_total', {
          workspace: 'acme',
          status: 'succeeded',
        }) === 1,
      'the finished run is counted',
    );
    {
      const apiAfter = await scrapeApi();
      const workerAfter = await scrapeWorker();
      assert.equal(moved(apiBefore, apiAfter, 'agent_runs_runs_created_total', { workspace: 'acme' }), 1);
      const worker = (name: string, labels: Record<string, string> = {}) =>
        moved(workerBefore, workerAfter, name, labels);
      assert.equal(worker('agent_runs_runs_finished_total', { workspace: 'acme', status: 'succeeded' }), 1);
      assert.equal(worker('agent_runs_run_duration_seconds', { status: 'succeeded' }), 1);
      assert.equal(worker('agent_runs_run_queue_wait_seconds'), 1);
      assert.equal(sample(workerAfter, 'agent_runs_runs_executing'), 0);
      assert.equal(worker('agent_runs_model_calls_total', { ...model, outcome: 'ok' }), 2);
      assert.equal(worker('agent_runs_model_call_duration_seconds', { provider: 'fakeopenai' }), 2);
      assert.equal(worker('agent_runs_tokens_total', { ...model, type: 'input' }), 24);
      assert.equal(worker('agent_runs_tokens_total', { ...model, type: 'output' }), 12);
      assert.equal(worker('agent_runs_tokens_total', { ...model, type: 'cache_read' }), 3);
      assert.equal(worker('agent_runs_tool_calls_total', { kind: 'svc', outcome: 'ok' }), 1);
      assert.equal(worker('agent_runs_tool_call_duration_seconds', { kind: 'svc' }), 1);
      assert.equal(sample(apiAfter, 'agent_runs_sse_streams_open'), 0);
      assert.equal(
        moved(apiBefore, apiAfter, 'agent_runs_http_requests_total', {
          method: 'GET',
          route: '/api/v1/workspaces/:workspaceSlug/agent-runs/:runId/stream',
          status: '200',
        }),
        1,
      );
      assert.equal(
        moved(apiBefore, apiAfter, 'agent_runs_http_requests_total', {
          method: 'POST',
          route: '/api/v1/workspaces/:workspaceSlug/agent-runs',
          status: '202',
        }),
        1,
      );
      // No label anywhere holds a run id or a raw path.
      for (const scrape of [apiAfter, workerAfter]) {
        for (const family of scrape.families) {
          for (const metric of family.metrics) {
            for (const value of Object.values(metric.labels ?? {})) {
              assert.ok(!value.includes(runId), `${family.name} has the run id in a label`);
              assert.ok(!value.includes('/workspaces/acme'), `${family.name} has a raw path in a label`);
            }
          }
        }
      }
    }
  });

  it('HTTP requests are labelled by route template, `unmatched` when no route matched; a 429 counts in its bucket', async () => {
    const apiBefore = await scrapeApi();
    const tight = await createWorkspaceWithKey(fixture.server, 'tight', {
      rateLimits: { runStart: 1, lifecycle: 100, otherMutations: 100 },
    });
    const attempts = [];
    for (let i = 0; i < 2; i++) {
      attempts.push(
        await fixture.server.request('POST', `${tight.ws}/agent-runs`, {
          body: {},
          headers: bearer(tight.key),
        }),
      );
    }
    assert.equal(attempts[1]?.status, 429);
    assert.equal((await fixture.server.request('GET', '/no/such/path/123')).status, 404);
    const apiAfter = await scrapeApi();
    assert.equal(
      sample(apiAfter, 'agent_runs_rate_limited_total', { bucket: 'run_start' }) -
        sample(apiBefore, 'agent_runs_rate_limited_total', { bucket: 'run_start' }),
      1,
    );
    assert.equal(
      sample(apiAfter, 'agent_runs_http_requests_total', {
        method: 'GET',
        route: 'unmatched',
        status: '404',
      }) -
        sample(apiBefore, 'agent_runs_http_requests_total', {
          method: 'GET',
          route: 'unmatched',
          status: '404',
        }),
      1,
    );
    const routes = new Set(
      apiAfter.families
        .find((family) => family.name === 'agent_runs_http_requests_total')
        ?.metrics.map((metric) => metric.labels?.route),
    );
    assert.ok(!routes.has('/no/such/path/123'));
    assert.ok(![...routes].some((route) => route?.includes('tight')), 'no workspace slug in a route label');
  });

  it('GET /metrics refuses a missing or wrong token with 401 { error, message }', async () => {
    const url = `${fixture.server.baseUrl}/metrics`;
    for (const headers of [{}, bearer('not-the-token')]) {
      const response = await scrapeText(url, headers);
      assert.equal(response.status, 401);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(body.error, 'unauthorized');
      assert.equal(typeof body.message, 'string');
    }
  });

  it('the management listener serves /metrics, /healthz and /readyz without a credential', async () => {
    const urls = [fixture.server.managementUrl, fixture.server.workerMetricsUrl].filter(
      (url): url is string => url !== undefined,
    );
    for (const base of urls) {
      assert.equal((await fetch(`${base}/metrics`)).status, 200);
      assert.deepEqual(await (await fetch(`${base}/healthz`)).json(), { status: 'ok' });
      const ready = await fetch(`${base}/readyz`);
      assert.equal(ready.status, 200);
      assert.equal(((await ready.json()) as { status: string }).status, 'ready');
    }
  });

  /** Posts a client tool call's answer to the run's tool-results endpoint, which must accept it. */
  async function answerCall(runId: string, body: Record<string, unknown>): Promise<void> {
    const posted = await fixture.server.request('POST', `${fixture.ws}/agent-runs/${runId}/tool-results`, {
      body,
      headers: fixture.headers,
    });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
  }
  const LOOKUP = { kind: 'local', name: 'lookup', parameters: { type: 'object', properties: {} } };
  const OUTCOMES = ['ok', 'error', 'timeout', 'cancelled'] as const;
  /** How each outcome of `kind` moved, summed over the processes (each is counted by one process). */
  const toolCallsMoved = (before: Scrape[], after: Scrape[], kind: string) =>
    Object.fromEntries(
      OUTCOMES.map((outcome) => [
        outcome,
        movedInAll(before, after, 'agent_runs_tool_calls_total', { kind, outcome }),
      ]),
    );
  const durationsMoved = (
    before: Scrape[],
    after: Scrape[],
    series: string,
    labels: Record<string, string>,
  ) => before.reduce((sum, scraped, index) => sum + seriesMoved(scraped, after[index]!, series, labels), 0);

  it("a client tool call counts once by its client kind when its answer comes: ok, or error from the answer's error flag", async () => {
    const before = await scrapeEach();
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'call_l', name: 'lookup', input: {} }] },
      { toolCalls: [{ id: 'call_m', name: 'search', input: {} }] },
      { text: ['Done.'] },
    );
    const run = await fixture.startRun({
      systemPrompt: 's',
      prompt: 'look it up',
      tools: [LOOKUP, { kind: 'mcp_local', name: 'docs', tools: [{ name: 'search' }] }],
    });
    const lookup = await run.waitFor((frame) => frame.data.data.name === 'lookup', 'the lookup call');
    await answerCall(run.runId, { toolUseId: lookup.data.data.toolUseId, result: 'found' });
    const search = await run.waitFor((frame) => frame.data.data.name === 'search', 'the search call');
    assert.equal(search.data.type, 'local_tool_call');
    assert.equal(search.data.data.kind, 'mcp_local');
    await answerCall(run.runId, { toolUseId: search.data.data.toolUseId, error: 'no such page' });
    assert.equal((await run.ended).at(-1)?.data.type, 'result');
    // An answer to a call already answered is refused and counts nothing.
    const again = await fixture.server.request('POST', `${fixture.ws}/agent-runs/${run.runId}/tool-results`, {
      body: { toolUseId: search.data.data.toolUseId, result: 'again' },
      headers: fixture.headers,
    });
    assert.notEqual(again.status, 200);

    const after = await scrapeEach();
    assert.deepEqual(toolCallsMoved(before, after, 'local'), { ok: 1, error: 0, timeout: 0, cancelled: 0 });
    assert.deepEqual(toolCallsMoved(before, after, 'mcp_local'), {
      ok: 0,
      error: 1,
      timeout: 0,
      cancelled: 0,
    });
    for (const kind of ['local', 'mcp_local']) {
      assert.equal(movedInAll(before, after, 'agent_runs_tool_call_duration_seconds', { kind }), 1, kind);
    }
    // Scale-out: the answer is counted where it was stored (the API), not by the worker that resumes.
    if (SCALE_OUT) {
      assert.equal(moved(before[0]!, after[0]!, 'agent_runs_tool_calls_total', { kind: 'local' }), 1);
    }
  });

  it('a client tool call left unanswered counts as timeout when its wait times out, and as cancelled when its run was cancelled while it waited; its duration is the wait', async () => {
    const before = await scrapeEach();
    const waitingRun = async () => {
      fixture.fake.enqueue({ toolCalls: [{ id: 'call_w', name: 'lookup', input: {} }] });
      const run = await fixture.startRun({
        systemPrompt: 's',
        prompt: 'look it up',
        tools: [LOOKUP],
        localToolTimeoutMs: 1_000,
      });
      await run.waitForType('local_tool_call');
      return run;
    };
    const timedOut = await waitingRun();
    const timeout = (await timedOut.ended).at(-1)?.data;
    assert.equal(timeout?.type, 'result');
    assert.equal(timeout?.data.subtype, 'error_local_tool_timeout');
    const cancelled = await waitingRun();
    const cancel = await fixture.server.request(
      'POST',
      `${fixture.ws}/agent-runs/${cancelled.runId}/cancel`,
      {
        headers: fixture.headers,
      },
    );
    assert.equal(cancel.status, 200);
    // The cancelled run still waits for its pending call, which times out: then the run ends cancelled.
    assert.equal((await cancelled.ended).at(-1)?.data.type, 'cancelled');

    const after = await scrapeEach();
    assert.deepEqual(toolCallsMoved(before, after, 'local'), { ok: 0, error: 0, timeout: 1, cancelled: 1 });
    assert.equal(movedInAll(before, after, 'agent_runs_tool_call_duration_seconds', { kind: 'local' }), 2);
    // Each waited its second: neither is in the buckets below 1 s, and together they waited 2 s or more.
    const labels = { kind: 'local' };
    assert.equal(
      durationsMoved(before, after, 'agent_runs_tool_call_duration_seconds_bucket', { ...labels, le: '0.5' }),
      0,
    );
    assert.ok(durationsMoved(before, after, 'agent_runs_tool_call_duration_seconds_sum', labels) >= 2);
  });

  it('agent_runs_sse_streams_open counts each run stream while it is open: down by one when a client leaves, back when the run ends', async () => {
    const open = async () => sample(await scrapeApi(), 'agent_runs_sse_streams_open');
    const base = await open();
    fixture.fake.enqueue({ toolCalls: [{ id: 'call_s', name: 'lookup', input: {} }] }, { text: ['Done.'] });
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'look it up', tools: [LOOKUP] });
    const call = await run.waitForType('local_tool_call');
    const second = await fixture.openStream(run.runId);
    assert.equal(second.status, 200);
    await eventually(async () => (await open()) === base + 2, 'two streams of the run are open');
    second.close();
    await eventually(async () => (await open()) === base + 1, 'the stream whose client left is not counted');
    await answerCall(run.runId, { toolUseId: call.data.data.toolUseId, result: 'found' });
    assert.equal((await run.ended).at(-1)?.data.type, 'result');
    await eventually(
      async () => (await open()) === base,
      'the stream that ended with its run is not counted',
    );
  });

  it('agent_runs_sse_streams_open counts a hosted A2A message/stream answer while it is open, whether it ends or its client leaves', async () => {
    await createAgent(fixture.server, fixture.slug, { name: 'Streamer', systemPrompt: 's' });
    const open = async () => sample(await scrapeApi(), 'agent_runs_sse_streams_open');
    const base = await open();
    /** A message/stream answer read up to its first frame (the task), with the run behind it and its reader. */
    const startStream = async (text: string) => {
      const response = await fetch(`${fixture.server.baseUrl}${endpointPath(fixture.slug, 'streamer')}`, {
        method: 'POST',
        headers: { ...fixture.headers, 'content-type': 'application/json' },
        body: JSON.stringify(sendBody(text, { method: 'message/stream' })),
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.ok(response.body);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let received = '';
      while (!received.includes('\n\n')) {
        const chunk = await reader.read();
        assert.ok(!chunk.done, `the stream ended before its first frame: ${received}`);
        received += decoder.decode(chunk.value, { stream: true });
      }
      const task = JSON.parse(/^data: (.*)$/m.exec(received)?.[1] ?? '{}') as {
        result?: { kind?: string; metadata?: { svc?: { runId?: string } } };
      };
      assert.equal(task.result?.kind, 'task', received);
      const runId = task.result?.metadata?.svc?.runId;
      assert.ok(runId, received);
      fixture.trackRun(runId);
      return { reader, runId };
    };
    const runEnded = async (runId: string) =>
      assert.equal((await readAll(fixture.streamUrl(runId), fixture.headers)).at(-1)?.data.type, 'result');

    const release = deferred();
    fixture.fake.enqueue({ text: ['Hel', 'lo.'], holdUntil: release.promise });
    const ending = await startStream('stream to the end');
    await eventually(async () => (await open()) === base + 1, 'the A2A stream is open');
    release.resolve();
    while (!(await ending.reader.read()).done);
    await eventually(async () => (await open()) === base, 'the ended A2A stream is not counted');
    await runEnded(ending.runId);

    const hold = deferred();
    fixture.fake.enqueue({ text: ['Hel', 'lo.'], holdUntil: hold.promise });
    const leaving = await startStream('leave early');
    await eventually(async () => (await open()) === base + 1, 'the A2A stream is open');
    await leaving.reader.cancel();
    await eventually(async () => (await open()) === base, 'the A2A stream whose client left is not counted');
    // The task goes on without its client, and its end changes nothing.
    hold.resolve();
    await runEnded(leaving.runId);
    assert.equal(await open(), base);
  });
});

describe('GET /metrics with AGENT_RUNS_METRICS_TOKEN, and with no token at all', { timeout: 60_000 }, () => {
  it('takes the metrics token and refuses the admin token when the metrics token is set', async () => {
    const server = await startTestServer({ env: { AGENT_RUNS_METRICS_TOKEN: 'metrics-token-0123456789' } });
    try {
      const url = `${server.baseUrl}/metrics`;
      assert.equal((await fetch(url, { headers: bearer('metrics-token-0123456789') })).status, 200);
      assert.equal((await fetch(url, { headers: bearer(server.adminToken) })).status, 401);
    } finally {
      await server.close();
    }
  });

  it('is 404 with neither the metrics token nor the admin token configured', async () => {
    const server = await startTestServer({ env: { AGENT_RUNS_ADMIN_TOKEN: '' } });
    try {
      const response = await fetch(`${server.baseUrl}/metrics`, { headers: bearer('anything') });
      assert.equal(response.status, 404);
    } finally {
      await server.close();
    }
  });
});
