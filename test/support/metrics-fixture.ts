import assert from 'node:assert/strict';
import { SCALE_OUT } from './deployment.ts';
import { startHttpToolServer, type HttpToolServer } from './http-tool-server.ts';
import { movedInAll, scrape, seriesMoved, type Scrape } from './prometheus-scrape.ts';
import { startRunFixture, type RunFixture } from './run-fixture.ts';
import { bearer } from './test-server.ts';

/**
 * What the metrics tests (test/http/metrics-*.test.ts) share: the service with its management
 * listener (`AGENT_RUNS_METRICS_PORT`), an HTTP tool server its workspace may call, and a scrape of
 * each process.
 */
export interface MetricsFixture {
  fixture: RunFixture;
  tools: HttpToolServer;
  /** The API's metrics, through GET /metrics with the admin token. */
  scrapeApi(): Promise<Scrape>;
  /** The metrics of the process that executes runs (scale-out: the worker's management listener). */
  scrapeWorker(): Promise<Scrape>;
  /** The metrics of each process once (embedded: the one process; scale-out: the API, then the worker). */
  scrapeEach(): Promise<Scrape[]>;
  close(): Promise<void>;
}

export async function startMetricsFixture(): Promise<MetricsFixture> {
  const tools = await startHttpToolServer();
  const fixture = await startRunFixture('openai-chat', {
    env: { AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8,::1/128', AGENT_RUNS_METRICS_PORT: '0' },
  });
  const { server } = fixture;
  const scrapeApi = () => scrape(server.baseUrl, bearer(server.adminToken));
  // Scale-out: the worker process executes runs, and its counts are on its own management listener.
  assert.equal(server.workerMetricsUrl !== undefined, SCALE_OUT);
  const executing = server.workerMetricsUrl ?? server.managementUrl;
  assert.ok(executing, 'AGENT_RUNS_METRICS_PORT opens a management listener');
  const scrapeWorker = () => scrape(executing);
  return {
    fixture,
    tools,
    scrapeApi,
    scrapeWorker,
    scrapeEach: async () =>
      server.workerMetricsUrl === undefined ? [await scrapeApi()] : [await scrapeApi(), await scrapeWorker()],
    close: async () => {
      await fixture.close();
      await tools.close();
    },
  };
}

/** A client tool `lookup` taking no arguments. */
export const LOOKUP = { kind: 'local', name: 'lookup', parameters: { type: 'object', properties: {} } };

/** Posts a client tool call's answer to the run's tool-results endpoint, which must accept it. */
export async function answerCall(
  fixture: RunFixture,
  runId: string,
  body: Record<string, unknown>,
): Promise<void> {
  const posted = await fixture.server.request('POST', `${fixture.ws}/agent-runs/${runId}/tool-results`, {
    body,
    headers: fixture.headers,
  });
  assert.equal(posted.status, 200, JSON.stringify(posted.body));
}

const OUTCOMES = ['ok', 'error', 'timeout', 'cancelled'] as const;

/** How each tool call outcome of `kind` moved, summed over the processes (each is counted by one process). */
export const toolCallsMoved = (before: Scrape[], after: Scrape[], kind: string) =>
  Object.fromEntries(
    OUTCOMES.map((outcome) => [
      outcome,
      movedInAll(before, after, 'agent_runs_tool_calls_total', { kind, outcome }),
    ]),
  );

/** How a histogram series moved, summed over the processes. */
export const durationsMoved = (
  before: Scrape[],
  after: Scrape[],
  series: string,
  labels: Record<string, string>,
) => before.reduce((sum, scraped, index) => sum + seriesMoved(scraped, after[index]!, series, labels), 0);
