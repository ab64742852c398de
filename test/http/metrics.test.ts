import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { SCALE_OUT } from '../support/deployment.ts';
import { answerJson, startHttpToolServer, type HttpToolServer } from '../support/http-tool-server.ts';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { bearer, createWorkspaceWithKey, startTestServer } from '../support/test-server.ts';
import { eventually } from '../support/waits.ts';

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

/** A scrape: the parsed families, and the text (for histograms, whose labels the parser drops). */
interface Scrape {
  families: PrometheusFamily[];
  text: string;
}

function parsed(text: string): Scrape {
  return { families: parsePrometheusTextFormat(text), text };
}

/**
 * The value of one counter or gauge sample, or a histogram's `_count` for these labels: 0 when the
 * series does not exist yet. parse-prometheus-text-format 1.1.1 keeps only the buckets of a labelled
 * histogram, so a histogram's count is read from its `_count` line of the text.
 */
function sample(scrape: Scrape, name: string, labels: Record<string, string> = {}): number {
  const family = scrape.families.find((entry) => entry.name === name);
  assert.ok(family, `${name} is exported`);
  const matches = (found: Record<string, string>) =>
    Object.entries(labels).every(([label, value]) => found[label] === value);
  if (family.type === 'HISTOGRAM') {
    for (const line of scrape.text.split('\n')) {
      const count = new RegExp(`^${name}_count(?:\\{(.*)\\})? (\\S+)$`).exec(line);
      if (!count) continue;
      const found = Object.fromEntries(
        [...(count[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map(([, label, value]) => [label, value]),
      );
      if (matches(found)) return Number(count[2]);
    }
    return 0;
  }
  const found = family.metrics.find((metric) => matches(metric.labels ?? {}));
  return found ? Number(found.value) : 0;
}

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
  before(async () => {
    tools = await startHttpToolServer();
    fixture = await startRunFixture('openai-chat', { env: { ...LOOPBACK, AGENT_RUNS_METRICS_PORT: '0' } });
    const { server } = fixture;
    scrapeApi = async () => {
      const response = await scrapeText(`${server.baseUrl}/metrics`, bearer(server.adminToken));
      assert.equal(response.status, 200);
      return parsed(await response.text());
    };
    // Scale-out: the worker process executes runs, and its counts are on its own management listener.
    assert.equal(server.workerMetricsUrl !== undefined, SCALE_OUT);
    const executing = server.workerMetricsUrl ?? server.managementUrl;
    assert.ok(executing, 'AGENT_RUNS_METRICS_PORT opens a management listener');
    scrapeWorker = async () => {
      const response = await scrapeText(`${executing}/metrics`);
      assert.equal(response.status, 200);
      return parsed(await response.text());
    };
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

    const moved = (before: Scrape, after: Scrape, name: string, labels: Record<string, string> = {}) =>
      sample(after, name, labels) - sample(before, name, labels);
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
