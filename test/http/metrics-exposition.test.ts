import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { PrometheusFamily } from 'parse-prometheus-text-format';
import { startMetricsFixture, type MetricsFixture } from '../support/metrics-fixture.ts';
import { parsed, sample } from '../support/prometheus-scrape.ts';
import type { RunFixture } from '../support/run-fixture.ts';
import { bearer, startTestServer } from '../support/test-server.ts';

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

describe('Prometheus metrics: the exposition and its listeners (extensions §2)', { timeout: 120_000 }, () => {
  let metrics: MetricsFixture;
  let fixture: RunFixture;
  before(async () => {
    metrics = await startMetricsFixture();
    fixture = metrics.fixture;
  });
  after(() => metrics?.close());
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
