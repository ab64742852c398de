import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import { startFakeOpenAIChat } from '../fakes/fake-openai-chat.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { answerJson, startHttpToolServer, type HttpToolServer } from './http-tool-server.ts';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.ts';
import { startServiceProcesses, type ServiceProcesses } from './service-processes.ts';

/**
 * What the traces tests (test/http/tracing-*.test.ts) share: the service exporting its spans to a
 * receiver, a client span to send as `traceparent`, and the lookups they assert on the trace with.
 */

export const RUNS_ROUTE = '/api/v1/workspaces/:workspaceSlug/agent-runs';
export const SESSIONS_ROUTE = '/api/v1/workspaces/:workspaceSlug/agent-sessions';
export const TOOL_RESULTS_ROUTE = '/api/v1/workspaces/:workspaceSlug/agent-runs/:runId/tool-results';

/** The service's processes, exporting to a receiver of their own, with one provisioned workspace. */
export interface TracedService {
  receiver: OtlpReceiver;
  processes: ServiceProcesses;
  fake: FakeProviderServer;
  tools: HttpToolServer;
  ws: string;
  headers: Record<string, string>;
  /** The id of the workspace tool `weather` (an HTTP tool on the tool server). */
  weatherToolId: string;
  close(): Promise<void>;
}

/** The fake provider a service's workspace calls, and how its connection is registered. */
const PROVIDERS = {
  'openai-chat': { provider: 'fakeopenai', start: () => startFakeOpenAIChat() },
  'anthropic-messages': { provider: 'anthropic', start: () => startFakeAnthropic() },
} as const;

/**
 * The service as separate processes exporting to an OTLP receiver of their own (`env` adds to the
 * OTLP variables), its workspace `acme` calling the fake provider of `api`, with the HTTP tool
 * `weather` registered.
 */
export async function startTracedService(
  env: Record<string, string>,
  api: keyof typeof PROVIDERS = 'openai-chat',
): Promise<TracedService> {
  const receiver = await startOtlpReceiver();
  const fake = await PROVIDERS[api].start();
  const tools = await startHttpToolServer();
  const processes = await startServiceProcesses({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '50',
    AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8,::1/128',
    ...env,
  });
  const close = async () => {
    await processes.close();
    await Promise.all([receiver.close(), fake.close(), tools.close()]);
  };
  try {
    const workspace = await processes.admin('POST', '/workspaces', { slug: 'acme' });
    assert.equal(workspace.status, 201, JSON.stringify(workspace.body));
    const key = await processes.admin('POST', '/workspaces/acme/api-keys', {});
    assert.equal(key.status, 201, JSON.stringify(key.body));
    const provider = await processes.admin('POST', '/workspaces/acme/providers', {
      provider: PROVIDERS[api].provider,
      api,
      baseUrl: fake.url,
      apiKey: 'sk-fake-provider-key',
      models: [{ vendorModelId: 'fake-model', label: 'Fake' }],
      isDefault: true,
    });
    assert.equal(provider.status, 201, JSON.stringify(provider.body));
    tools.route('/weather', answerJson({ forecast: 'sunny' }));
    const tool = await processes.admin('POST', '/workspaces/acme/tools', {
      name: 'weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      http: { url: tools.url('/weather'), method: 'POST' },
    });
    assert.equal(tool.status, 201, JSON.stringify(tool.body));
    return {
      receiver,
      processes,
      fake,
      tools,
      ws: '/api/v1/workspaces/acme',
      headers: { authorization: `Bearer ${key.body.key as string}` },
      weatherToolId: tool.body.id as string,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A client's span, sent as `traceparent` with the request that creates a run. */
export function clientSpan(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

export function parseTraceparent(header: string | undefined): { traceId: string; spanId: string } {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(header ?? '');
  assert.ok(match, `a W3C traceparent header: ${header}`);
  return { traceId: match[1] ?? '', spanId: match[2] ?? '' };
}

export const isRunSpan = (runId: string) => (span: ReceivedSpan) =>
  span.name.startsWith('invoke_agent ') && span.attributes['agent_runs.run.id'] === runId;

/** Creates a run with the client's `traceparent` and waits until its `invoke_agent` span is exported. */
export async function traceRun(
  service: TracedService,
  body: Record<string, unknown>,
): Promise<{
  runId: string;
  client: ReturnType<typeof clientSpan>;
  trace: ReceivedSpan[];
  run: ReceivedSpan;
}> {
  const client = clientSpan();
  const created = await service.processes.request('POST', `${service.ws}/agent-runs`, {
    body,
    headers: { ...service.headers, traceparent: client.traceparent },
  });
  assert.equal(created.status, 202, JSON.stringify(created.body));
  const runId = created.body.runId as string;
  await untilExported(service.receiver, client.traceId, isRunSpan(runId));
  const trace = service.receiver.spans.filter((span) => span.traceId === client.traceId);
  const run = trace.find(isRunSpan(runId));
  assert.ok(run);
  return { runId, client, trace, run };
}

/**
 * Waits until the trace holds the run's span and the creating request's server span: each process
 * exports its own spans, the API's and the worker's in whichever order (a hosted A2A request even
 * ends after its run).
 */
export function untilExported(
  receiver: OtlpReceiver,
  traceId: string,
  isRun: (span: ReceivedSpan) => boolean,
): Promise<void> {
  return receiver.until((spans) => {
    const trace = spans.filter((span) => span.traceId === traceId);
    return trace.some(isRun) && trace.some((span) => span.kind === SPAN_KIND.server);
  }, `the run span and the server span of trace ${traceId} are exported`);
}

export function only(
  spans: readonly ReceivedSpan[],
  check: (span: ReceivedSpan) => boolean,
  what: string,
): ReceivedSpan {
  const found = spans.filter(check);
  assert.equal(found.length, 1, `exactly one ${what}: ${spans.map((span) => span.name).join(', ')}`);
  return found[0] as ReceivedSpan;
}

/** Whether `span` descends from `ancestor` within `trace`. */
export function descendsFrom(
  trace: readonly ReceivedSpan[],
  span: ReceivedSpan,
  ancestor: ReceivedSpan,
): boolean {
  for (let current: ReceivedSpan | undefined = span; current;) {
    if (current.parentSpanId === ancestor.spanId) return true;
    const parentId: string = current.parentSpanId;
    current = trace.find((candidate) => candidate.spanId === parentId);
  }
  return false;
}
