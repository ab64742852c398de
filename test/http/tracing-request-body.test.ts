import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startFakeOpenAIChat } from '../fakes/fake-openai-chat.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { startOtlpReceiver, SPAN_KIND, type OtlpReceiver } from '../support/otlp-receiver.ts';
import { startServiceProcesses, type ServiceProcesses } from '../support/service-processes.ts';

const RUNS_ROUTE = '/api/v1/workspaces/:workspaceSlug/agent-runs';

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

describe('HTTP server spans: a request whose body arrives after the request (extensions §3)', { timeout: 180_000 }, () => {
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

  it('the run a request creates is a child of its server span, also when the body came in parts (read in socket events, outside the span)', async () => {
    fake.enqueue({ text: ['Done.'] });
    const traceId = randomBytes(16).toString('hex');
    const clientSpanId = randomBytes(8).toString('hex');
    // Large enough to arrive in several socket reads, on top of the pause between the two writes.
    const created = await postInTwoParts(
      `${processes.baseUrl}/api/v1/workspaces/acme/agent-runs`,
      { authorization: `Bearer ${apiKey}`, traceparent: `00-${traceId}-${clientSpanId}-01` },
      JSON.stringify({ systemPrompt: 's', prompt: `summarize: ${'x'.repeat(150_000)}` }),
    );
    assert.equal(created.status, 202, created.body);
    const { runId } = JSON.parse(created.body) as { runId: string };

    const inTrace = () => receiver.spans.filter((span) => span.traceId === traceId);
    const isRun = (span: { name: string; attributes: Record<string, unknown> }) =>
      span.name.startsWith('invoke_agent ') && span.attributes['agent_runs.run.id'] === runId;
    await receiver.until(
      () => inTrace().some(isRun) && inTrace().some((span) => span.kind === SPAN_KIND.server),
      'the run span and the server span are exported',
    );
    const server = inTrace().find(
      (span) => span.kind === SPAN_KIND.server && span.attributes['http.route'] === RUNS_ROUTE,
    );
    const run = inTrace().find(isRun);
    assert.ok(server && run);
    assert.equal(server.parentSpanId, clientSpanId);
    assert.equal(run.parentSpanId, server.spanId, 'invoke_agent is a child of the creating request span');
  });
});
