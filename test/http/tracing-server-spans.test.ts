import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startFakeOpenAIChat } from '../fakes/fake-openai-chat.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import {
  startOtlpReceiver,
  SPAN_KIND,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../support/otlp-receiver.ts';
import { startServiceProcesses, type ServiceProcesses } from '../support/service-processes.ts';

const RUNS_ROUTE = '/api/v1/workspaces/:workspaceSlug/agent-runs';

const isRunSpan = (runId: string) => (span: ReceivedSpan) =>
  span.name.startsWith('invoke_agent ') && span.attributes['agent_runs.run.id'] === runId;

/**
 * Sends `body` in two writes, the second once the first was flushed to the socket (and a few event
 * loop turns later): the request reaches the service before the rest of its body does.
 */
function postInTwoParts(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const data = Buffer.from(body);
    const half = Math.floor(data.length / 2);
    const request = httpRequest(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(data.length) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.write(data.subarray(0, half), () => setTimeout(() => request.end(data.subarray(half)), 20));
  });
}

describe('HTTP server spans (extensions §3)', { timeout: 180_000 }, () => {
  let receiver: OtlpReceiver;
  let fake: FakeProviderServer;
  let processes: ServiceProcesses;
  let apiKey: string;
  before(async () => {
    receiver = await startOtlpReceiver();
    fake = await startFakeOpenAIChat();
    processes = await startServiceProcesses({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      AGENT_RUNS_METRICS_PORT: '0',
    });
    assert.equal((await processes.admin('POST', '/workspaces', { slug: 'acme' })).status, 201);
    const key = await processes.admin('POST', '/workspaces/acme/api-keys', {});
    assert.equal(key.status, 201, JSON.stringify(key.body));
    apiKey = key.body.key as string;
    const provider = await processes.admin('POST', '/workspaces/acme/providers', {
      provider: 'fakeopenai',
      api: 'openai-chat',
      baseUrl: fake.url,
      apiKey: 'sk-fake-provider-key',
      models: [{ vendorModelId: 'fake-model', label: 'Fake' }],
      isDefault: true,
    });
    assert.equal(provider.status, 201, JSON.stringify(provider.body));
  });
  after(async () => {
    await processes?.close();
    await Promise.all([receiver?.close(), fake?.close()]);
  });

  /** Creates a run with a client span as `traceparent`; resolves once its trace's run and server spans are exported. */
  async function tracedRun(
    send: (headers: Record<string, string>) => Promise<{ status: number; body: string }>,
  ): Promise<{ clientSpanId: string; trace: () => ReceivedSpan[]; runId: string }> {
    fake.enqueue({ text: ['Done.'] });
    const traceId = randomBytes(16).toString('hex');
    const clientSpanId = randomBytes(8).toString('hex');
    const created = await send({
      authorization: `Bearer ${apiKey}`,
      traceparent: `00-${traceId}-${clientSpanId}-01`,
    });
    assert.equal(created.status, 202, created.body);
    const { runId } = JSON.parse(created.body) as { runId: string };
    const trace = () => receiver.spans.filter((span) => span.traceId === traceId);
    await receiver.until(
      () => trace().some(isRunSpan(runId)) && trace().some((span) => span.kind === SPAN_KIND.server),
      'the run span and the server span are exported',
    );
    return { clientSpanId, trace, runId };
  }

  it('the run a request creates is a child of its server span, also when the body came in parts (read in socket events, outside the span)', async () => {
    // Large enough to arrive in several socket reads, on top of the pause between the two writes.
    const body = JSON.stringify({ systemPrompt: 's', prompt: `summarize: ${'x'.repeat(150_000)}` });
    const { clientSpanId, trace, runId } = await tracedRun((headers) =>
      postInTwoParts(`${processes.baseUrl}/api/v1/workspaces/acme/agent-runs`, headers, body),
    );
    const server = trace().find(
      (span) => span.kind === SPAN_KIND.server && span.attributes['http.route'] === RUNS_ROUTE,
    );
    const run = trace().find(isRunSpan(runId));
    assert.ok(server && run);
    assert.equal(server.parentSpanId, clientSpanId);
    assert.equal(server.attributes['url.path'], '/api/v1/workspaces/acme/agent-runs');
    assert.equal(run.parentSpanId, server.spanId, 'invoke_agent is a child of the creating request span');
  });

  it('the management listener (AGENT_RUNS_METRICS_PORT) has no server spans: scrapes and probes are no traces', async () => {
    const management = processes.managementUrl;
    assert.ok(management, 'AGENT_RUNS_METRICS_PORT opens a management listener');
    for (const path of ['/metrics', '/healthz', '/readyz']) {
      const response = await fetch(`${management}${path}`);
      assert.equal(response.status, 200, path);
      await response.arrayBuffer();
    }
    // A request on the API after them: once its spans are exported, the earlier ones would have been.
    await tracedRun(async (headers) => {
      const response = await fetch(`${processes.baseUrl}/api/v1/workspaces/acme/agent-runs`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ systemPrompt: 's', prompt: 'hello' }),
      });
      return { status: response.status, body: await response.text() };
    });
    const managementSpans = receiver.spans.filter((span) =>
      ['/metrics', '/healthz', '/readyz'].includes(String(span.attributes['url.path'])),
    );
    assert.deepEqual(
      managementSpans.map((span) => span.name),
      [],
    );
  });
});
