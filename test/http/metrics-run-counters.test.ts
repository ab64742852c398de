import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startMetricsFixture, type MetricsFixture } from '../support/metrics-fixture.ts';
import { answerJson } from '../support/http-tool-server.ts';
import { moved, sample } from '../support/prometheus-scrape.ts';
import type { RunFixture } from '../support/run-fixture.ts';
import { bearer, createWorkspaceWithKey } from '../support/test-server.ts';
import { eventually } from '../support/waits.ts';

describe(
  'Prometheus metrics: what a run and an HTTP request count (extensions §2)',
  { timeout: 120_000 },
  () => {
    let metrics: MetricsFixture;
    let fixture: RunFixture;
    before(async () => {
      metrics = await startMetricsFixture();
      fixture = metrics.fixture;
    });
    after(() => metrics?.close());
    afterEach(() => fixture.cleanUp());

    it('counters move by exactly the run, the model calls, the tokens and the tool call the test made', async () => {
      metrics.tools.route('/weather', answerJson({ forecast: 'sunny' }));
      const created = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/tools`, {
        name: 'weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        http: { url: metrics.tools.url('/weather'), method: 'POST' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const apiBefore = await metrics.scrapeApi();
      const workerBefore = await metrics.scrapeWorker();
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
          moved(workerBefore, await metrics.scrapeWorker(), 'agent_runs_runs_finished_total', {
            workspace: 'acme',
            status: 'succeeded',
          }) === 1,
        'the finished run is counted',
      );
      {
        const apiAfter = await metrics.scrapeApi();
        const workerAfter = await metrics.scrapeWorker();
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
      const apiBefore = await metrics.scrapeApi();
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
      const apiAfter = await metrics.scrapeApi();
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
  },
);
