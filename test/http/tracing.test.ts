import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sendBody } from '../a2a/a2a-support.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import { startFakeOpenAIChat } from '../fakes/fake-openai-chat.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { AGENT_CARD_PATH, startA2aTestPeer } from '../support/a2a-test-peer.ts';
import { SCALE_OUT } from '../support/deployment.ts';
import { answerJson, startHttpToolServer, type HttpToolServer } from '../support/http-tool-server.ts';
import {
  SPAN_KIND,
  STATUS_ERROR,
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../support/otlp-receiver.ts';
import { startServiceProcesses, type ServiceProcesses } from '../support/service-processes.ts';
import { startMcpTestServer } from '../support/mcp-test-server.ts';
import { startRunFixture, type RunFixture } from '../support/run-fixture.ts';
import { eventually } from '../support/waits.ts';

const RUNS_ROUTE = '/api/v1/workspaces/:workspaceSlug/agent-runs';
const SESSIONS_ROUTE = '/api/v1/workspaces/:workspaceSlug/agent-sessions';
const TOOL_RESULTS_ROUTE = '/api/v1/workspaces/:workspaceSlug/agent-runs/:runId/tool-results';

/** The service's processes, exporting to a receiver of their own, with one provisioned workspace. */
interface TracedService {
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

async function startTracedService(
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
function clientSpan(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

function parseTraceparent(header: string | undefined): { traceId: string; spanId: string } {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(header ?? '');
  assert.ok(match, `a W3C traceparent header: ${header}`);
  return { traceId: match[1] ?? '', spanId: match[2] ?? '' };
}

const isRunSpan = (runId: string) => (span: ReceivedSpan) =>
  span.name.startsWith('invoke_agent ') && span.attributes['agent_runs.run.id'] === runId;

/** Creates a run with the client's `traceparent` and waits until its `invoke_agent` span is exported. */
async function traceRun(
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
function untilExported(
  receiver: OtlpReceiver,
  traceId: string,
  isRun: (span: ReceivedSpan) => boolean,
): Promise<void> {
  return receiver.until((spans) => {
    const trace = spans.filter((span) => span.traceId === traceId);
    return trace.some(isRun) && trace.some((span) => span.kind === SPAN_KIND.server);
  }, `the run span and the server span of trace ${traceId} are exported`);
}

function only(
  spans: readonly ReceivedSpan[],
  check: (span: ReceivedSpan) => boolean,
  what: string,
): ReceivedSpan {
  const found = spans.filter(check);
  assert.equal(found.length, 1, `exactly one ${what}: ${spans.map((span) => span.name).join(', ')}`);
  return found[0] as ReceivedSpan;
}

/** Whether `span` descends from `ancestor` within `trace`. */
function descendsFrom(trace: readonly ReceivedSpan[], span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
  for (let current: ReceivedSpan | undefined = span; current;) {
    if (current.parentSpanId === ancestor.spanId) return true;
    const parentId: string = current.parentSpanId;
    current = trace.find((candidate) => candidate.spanId === parentId);
  }
  return false;
}

describe('OpenTelemetry traces (extensions §3)', { timeout: 180_000 }, () => {
  let service: TracedService;
  before(async () => {
    service = await startTracedService({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' });
  });
  after(() => service?.close());

  it('a run is one trace under the client span: the server span, invoke_agent under it (in the worker process too), chat and execute_tool under the run, traceparent to the provider and the HTTP tool', async () => {
    service.fake.enqueue(
      {
        toolCalls: [{ id: 'call_w', name: 'weather', input: { city: 'Paris' } }],
        usage: { inputTokens: 11, outputTokens: 7 },
      },
      { text: ['Sunny.'], usage: { inputTokens: 13, outputTokens: 5 } },
    );
    const providerRequestsBefore = service.fake.requests.length;
    const { runId, client, trace, run } = await traceRun(service, {
      name: 'forecaster',
      systemPrompt: 's',
      prompt: 'weather in Paris?',
      tools: [{ kind: 'svc', id: service.weatherToolId }],
    });

    // The HTTP server span: a child of the client's span, named after the route template.
    const server = only(
      trace,
      (span) => span.kind === SPAN_KIND.server && span.attributes['http.route'] === RUNS_ROUTE,
      'server span of the run creation',
    );
    assert.equal(server.name, `POST ${RUNS_ROUTE}`);
    assert.equal(server.parentSpanId, client.spanId);
    assert.equal(server.attributes['http.request.method'], 'POST');
    assert.equal(server.attributes['http.response.status_code'], 202);
    assert.equal(server.resource['service.name'], 'agent-runs');

    // invoke_agent: a child of the creating request's span, even when another process executed it.
    assert.equal(run.name, 'invoke_agent forecaster');
    assert.equal(run.kind, SPAN_KIND.internal);
    assert.equal(run.parentSpanId, server.spanId);
    assert.deepEqual(
      {
        operation: run.attributes['gen_ai.operation.name'],
        agent: run.attributes['gen_ai.agent.name'],
        model: run.attributes['gen_ai.request.model'],
        input: run.attributes['gen_ai.usage.input_tokens'],
        output: run.attributes['gen_ai.usage.output_tokens'],
        workspace: run.attributes['agent_runs.workspace'],
        status: run.attributes['agent_runs.run.status'],
      },
      {
        operation: 'invoke_agent',
        agent: 'forecaster',
        model: 'fake-model',
        input: 24,
        output: 12,
        workspace: 'acme',
        status: 'succeeded',
      },
    );
    assert.ok(run.startTimeMs <= server.endTimeMs, 'the run span starts at the run creation');
    const pid = (span: ReceivedSpan) => span.resource['process.pid'];
    if (SCALE_OUT) assert.notEqual(pid(run), pid(server), 'the worker process reported the run span');
    else assert.equal(pid(run), pid(server));

    // chat: one CLIENT span per model call, children of the run's span.
    const chats = trace.filter((span) => span.name === 'chat fake-model');
    assert.equal(chats.length, 2);
    for (const chat of chats) {
      assert.equal(chat.kind, SPAN_KIND.client);
      assert.equal(chat.parentSpanId, run.spanId);
      assert.equal(chat.attributes['gen_ai.operation.name'], 'chat');
      assert.equal(chat.attributes['gen_ai.provider.name'], 'fakeopenai');
      assert.equal(chat.attributes['gen_ai.request.model'], 'fake-model');
      assert.ok(run.startTimeMs <= chat.startTimeMs && chat.endTimeMs <= run.endTimeMs);
      assert.equal(chat.attributes['gen_ai.input.messages'], undefined, 'no content without the opt-in');
    }
    const [toolTurn, finalTurn] = [...chats].sort((a, b) => a.startTimeMs - b.startTimeMs);
    assert.deepEqual(toolTurn?.attributes['gen_ai.response.finish_reasons'], ['tool_use']);
    assert.equal(toolTurn?.attributes['gen_ai.usage.input_tokens'], 11);
    assert.equal(finalTurn?.attributes['gen_ai.usage.output_tokens'], 5);

    // execute_tool: the server-resolved call, a child of the run's span.
    const tool = only(trace, (span) => span.name === 'execute_tool weather', 'tool span');
    assert.equal(tool.kind, SPAN_KIND.internal);
    assert.equal(tool.parentSpanId, run.spanId);
    assert.deepEqual(
      [tool.attributes['gen_ai.operation.name'], tool.attributes['gen_ai.tool.name']],
      ['execute_tool', 'weather'],
    );
    assert.equal(tool.attributes['gen_ai.tool.call.id'], 'call_w');
    assert.equal(tool.attributes['agent_runs.tool.kind'], 'svc');
    assert.equal(tool.attributes['gen_ai.tool.call.arguments'], undefined, 'no content without the opt-in');

    // The provider got each call's traceparent: the chat span's.
    const providerRequests = service.fake.requests.slice(providerRequestsBefore);
    assert.equal(providerRequests.length, 2);
    const sent = providerRequests.map((request) => parseTraceparent(request.headers.traceparent));
    assert.deepEqual(
      sent.map((context) => context.traceId),
      [client.traceId, client.traceId],
    );
    assert.deepEqual(
      new Set(sent.map((context) => context.spanId)),
      new Set(chats.map((chat) => chat.spanId)),
    );

    // The HTTP tool got a traceparent of the run's trace, sent from inside the tool's span.
    const toolRequest = service.tools.requestsTo('/weather').at(-1);
    const toolContext = parseTraceparent(toolRequest?.headers.traceparent as string | undefined);
    assert.equal(toolContext.traceId, client.traceId);
    const sender = trace.find((span) => span.spanId === toolContext.spanId);
    assert.ok(sender, 'the span that sent the tool request is in the trace');
    assert.ok(sender.spanId === tool.spanId || descendsFrom(trace, sender, tool));
    assert.equal(runId, run.attributes['agent_runs.run.id']);
  });

  it('MCP and A2A peers get the traceparent of a span under their execute_tool span (the MCP catalog listing, of a span under the run)', async () => {
    const mcp = await startMcpTestServer();
    const peer = await startA2aTestPeer({ rpcPath: '/', card: true });
    try {
      service.fake.enqueue(
        {
          toolCalls: [
            { id: 'call_m', name: 'docs_echo', input: { text: 'hello' } },
            { id: 'call_a', name: 'researcher', input: { message: 'find x' } },
          ],
        },
        { text: ['Done.'] },
      );
      const { client, trace, run } = await traceRun(service, {
        systemPrompt: 's',
        prompt: 'p',
        tools: [
          { kind: 'mcp', name: 'docs', url: mcp.url, toolFilter: ['echo'] },
          { kind: 'a2a', name: 'researcher', agentCardUrl: `${peer.origin}${AGENT_CARD_PATH}` },
        ],
      });
      const senderOf = (header: string | string[] | undefined) => {
        const context = parseTraceparent(typeof header === 'string' ? header : undefined);
        assert.equal(context.traceId, client.traceId);
        const sender = trace.find((span) => span.spanId === context.spanId);
        assert.ok(sender, `the span ${context.spanId} that sent the request is in the trace`);
        return sender;
      };
      const mcpTool = only(trace, (span) => span.name === 'execute_tool docs_echo', 'MCP tool span');
      assert.equal(mcpTool.attributes['agent_runs.tool.kind'], 'mcp');
      const mcpCall = mcp.requests.find((request) => request.rpcMethod === 'tools/call');
      assert.ok(descendsFrom(trace, senderOf(mcpCall?.headers.traceparent), mcpTool));
      const listing = mcp.requests.find((request) => request.rpcMethod === 'tools/list');
      assert.ok(descendsFrom(trace, senderOf(listing?.headers.traceparent), run));
      const a2aTool = only(trace, (span) => span.name === 'execute_tool researcher', 'A2A tool span');
      assert.equal(a2aTool.attributes['agent_runs.tool.kind'], 'a2a');
      const message = peer.requests.find((request) => request.method === 'POST');
      assert.ok(descendsFrom(trace, senderOf(message?.headers.traceparent), a2aTool));
    } finally {
      await Promise.all([mcp.close(), peer.close()]);
    }
  });

  it('a failed model call: the chat span has error.type the errorClass and status ERROR; the run span says failed', async () => {
    service.fake.enqueue({ type: 'http-error', status: 400, message: 'bad request' });
    const { trace, run } = await traceRun(service, { systemPrompt: 's', prompt: 'fail' });
    assert.equal(run.name, 'invoke_agent agent');
    const chat = only(trace, (span) => span.name === 'chat fake-model', 'chat span');
    assert.equal(chat.parentSpanId, run.spanId);
    assert.equal(chat.attributes['error.type'], 'invalid_request');
    assert.equal(chat.statusCode, STATUS_ERROR);
    assert.equal(run.attributes['agent_runs.run.status'], 'failed');
    assert.equal(run.attributes['error.type'], 'invalid_request');
    assert.equal(run.statusCode, STATUS_ERROR);
  });

  it('a failed server tool call: its execute_tool span has error.type and status ERROR', async () => {
    service.tools.route('/broken', answerJson({ error: 'down' }, 503));
    const created = await service.processes.admin('POST', '/workspaces/acme/tools', {
      name: 'broken',
      parameters: { type: 'object', properties: {} },
      http: { url: service.tools.url('/broken'), method: 'POST' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    service.fake.enqueue(
      { toolCalls: [{ id: 'call_b', name: 'broken', input: {} }] },
      { text: ['It failed.'] },
    );
    const { trace, run } = await traceRun(service, {
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'svc', id: created.body.id as string }],
    });
    const tool = only(trace, (span) => span.name === 'execute_tool broken', 'tool span');
    assert.equal(tool.parentSpanId, run.spanId);
    assert.equal(tool.attributes['error.type'], 'tool_error');
    assert.equal(tool.statusCode, STATUS_ERROR);
    assert.equal(
      run.attributes['agent_runs.run.status'],
      'succeeded',
      'the model read the error and answered',
    );
  });

  it("a session message's run: invoke_agent is a child of the message request's span, with the session as gen_ai.conversation.id", async () => {
    const session = await service.processes.request('POST', `${service.ws}/agent-sessions`, {
      body: { name: 'helper', systemPrompt: 's' },
      headers: service.headers,
    });
    assert.equal(session.status, 201, JSON.stringify(session.body));
    const sessionId = session.body.sessionId as string;
    service.fake.enqueue({ text: ['Hello.'] });
    const client = clientSpan();
    const sent = await service.processes.request(
      'POST',
      `${service.ws}/agent-sessions/${sessionId}/messages`,
      {
        body: { prompt: 'hi' },
        headers: { ...service.headers, traceparent: client.traceparent },
      },
    );
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    const runId = sent.body.runId as string;
    await untilExported(service.receiver, client.traceId, isRunSpan(runId));
    const trace = service.receiver.spans.filter((span) => span.traceId === client.traceId);
    const server = only(trace, (span) => span.kind === SPAN_KIND.server, 'server span');
    assert.equal(server.attributes['http.route'], `${SESSIONS_ROUTE}/:sessionId/messages`);
    assert.equal(server.parentSpanId, client.spanId);
    const run = only(trace, isRunSpan(runId), 'run span');
    assert.equal(run.name, 'invoke_agent helper');
    assert.equal(run.parentSpanId, server.spanId);
    assert.equal(run.attributes['gen_ai.conversation.id'], sessionId);
    assert.equal(
      only(trace, (span) => span.name === 'chat fake-model', 'chat span').parentSpanId,
      run.spanId,
    );
  });

  it("a hosted A2A message's run: invoke_agent is a child of the A2A request's span, with the stored agent's id and name", async () => {
    const agent = await service.processes.admin('POST', '/workspaces/acme/agents', {
      name: 'Helper',
      systemPrompt: 's',
    });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    const agentId = agent.body.id as string;
    service.fake.enqueue({ text: ['Hello, peer.'] });
    const client = clientSpan();
    const answered = await service.processes.request('POST', '/api/a2a/acme/agents/helper', {
      body: sendBody('hi'),
      headers: { ...service.headers, traceparent: client.traceparent },
    });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    const isAgentRun = (span: ReceivedSpan) =>
      span.name.startsWith('invoke_agent ') && span.attributes['gen_ai.agent.id'] === agentId;
    await untilExported(service.receiver, client.traceId, isAgentRun);
    const trace = service.receiver.spans.filter((span) => span.traceId === client.traceId);
    const server = only(trace, (span) => span.kind === SPAN_KIND.server, 'server span');
    assert.equal(server.parentSpanId, client.spanId);
    assert.equal(server.attributes['http.request.method'], 'POST');
    assert.match(String(server.attributes['http.route']), /^\/api\/a2a\/:workspaceSlug\/agents\/:agentSlug/);
    const run = only(trace, isAgentRun, 'run span');
    assert.equal(run.name, 'invoke_agent Helper');
    assert.equal(run.parentSpanId, server.spanId);
    assert.equal(run.attributes['gen_ai.agent.name'], 'Helper');
    assert.equal(typeof run.attributes['gen_ai.conversation.id'], 'string', 'the A2A context has a session');
  });

  it("a client tool's span lasts from its local_tool_call to the result a separate request answered", async () => {
    service.fake.enqueue(
      { toolCalls: [{ id: 'call_c', name: 'confirm', input: { question: 'go?' } }] },
      { text: ['Done.'] },
    );
    const client = clientSpan();
    const created = await service.processes.request('POST', `${service.ws}/agent-runs`, {
      body: {
        systemPrompt: 's',
        prompt: 'ask me',
        tools: [
          {
            kind: 'local',
            name: 'confirm',
            parameters: { type: 'object', properties: { question: { type: 'string' } } },
          },
        ],
      },
      headers: { ...service.headers, traceparent: client.traceparent },
    });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const runId = created.body.runId as string;
    await eventually(async () => {
      const run = await service.processes.request('GET', `${service.ws}/agent-runs/${runId}`, {
        headers: service.headers,
      });
      return (run.body.pendingToolCalls as unknown[] | undefined)?.length === 1;
    }, 'the client tool call is pending');
    const answerSent = Date.now();
    const answered = await service.processes.request(
      'POST',
      `${service.ws}/agent-runs/${runId}/tool-results`,
      {
        body: { toolUseId: 'call_c', result: 'yes' },
        headers: service.headers,
      },
    );
    const answerDone = Date.now();
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    await untilExported(service.receiver, client.traceId, isRunSpan(runId));
    const trace = service.receiver.spans.filter((span) => span.traceId === client.traceId);
    const run = only(trace, isRunSpan(runId), 'run span');
    const tool = only(trace, (span) => span.name === 'execute_tool confirm', 'client tool span');
    assert.equal(tool.parentSpanId, run.spanId);
    assert.equal(tool.kind, SPAN_KIND.internal);
    assert.equal(tool.attributes['agent_runs.tool.kind'], 'local');
    assert.equal(tool.attributes['gen_ai.tool.call.id'], 'call_c');
    // From the call (before the client could see it) to the answer (stored while its request was served).
    assert.ok(tool.startTimeMs <= answerSent, 'the span starts at the local_tool_call');
    assert.ok(
      tool.endTimeMs >= answerSent - 1 && tool.endTimeMs <= answerDone + 1,
      'the span ends at the answer',
    );
    // The answer is a request of its own: a server span of a trace of its own (no traceparent was sent).
    await service.receiver.until(
      (spans) =>
        spans.some(
          (span) => span.attributes['http.route'] === TOOL_RESULTS_ROUTE && span.traceId !== client.traceId,
        ),
      'the tool result request has a server span of its own trace',
    );
    assert.equal(run.attributes['agent_runs.run.status'], 'succeeded');
  });
});

describe(
  'OpenTelemetry traces with message content, exported as http/protobuf, model calls through the AI SDK on the event loop',
  { timeout: 180_000 },
  () => {
    let service: TracedService;
    before(async () => {
      service = await startTracedService(
        {
          OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
          OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
          OTEL_SERVICE_NAME: 'agents-under-test',
          // The provider requests go out from the event loop's thread, where fetch is instrumented too.
          AGENT_RUNS_MODEL_THREADS: '0',
        },
        'anthropic-messages',
      );
    });
    after(() => service?.close());

    it('records prompts, replies and tool arguments and results only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true', async () => {
      service.fake.enqueue(
        { toolCalls: [{ id: 'call_w', name: 'weather', input: { city: 'Oslo' } }] },
        { text: ['Sunny in Oslo.'] },
      );
      const { trace, run } = await traceRun(service, {
        systemPrompt: 'be brief',
        prompt: 'weather in Oslo?',
        tools: [{ kind: 'svc', id: service.weatherToolId }],
      });
      assert.ok(service.receiver.contentTypes.length > 0);
      for (const type of service.receiver.contentTypes) assert.equal(type, 'application/x-protobuf');
      assert.equal(run.resource['service.name'], 'agents-under-test');
      const chats = [...trace.filter((span) => span.name === 'chat fake-model')].sort(
        (a, b) => a.startTimeMs - b.startTimeMs,
      );
      assert.equal(chats.length, 2);
      const input = JSON.parse(String(chats[0]?.attributes['gen_ai.input.messages'])) as unknown;
      assert.deepEqual(input, [{ role: 'user', parts: [{ type: 'text', content: 'weather in Oslo?' }] }]);
      assert.match(String(chats[0]?.attributes['gen_ai.system_instructions']), /be brief/);
      const output = JSON.parse(String(chats[1]?.attributes['gen_ai.output.messages'])) as unknown;
      assert.deepEqual(output, [
        {
          role: 'assistant',
          parts: [{ type: 'text', content: 'Sunny in Oslo.' }],
          finish_reason: 'end_turn',
        },
      ]);
      assert.equal(chats[0]?.attributes['gen_ai.provider.name'], 'anthropic');
      // One traceparent per provider request (the chat span's), not a second one from the fetch instrumentation.
      const providerRequests = service.fake.requests.slice(-2);
      assert.deepEqual(
        providerRequests.map((request) => parseTraceparent(request.headers.traceparent).spanId),
        chats.map((chat) => chat.spanId),
      );
      assert.ok(
        !trace.some((span) => span.kind === SPAN_KIND.client && span.parentSpanId === chats[0]?.spanId),
      );
      const tool = only(trace, (span) => span.name === 'execute_tool weather', 'tool span');
      assert.deepEqual(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments'])), { city: 'Oslo' });
      assert.match(String(tool.attributes['gen_ai.tool.call.result']), /sunny/);
    });
  },
);

describe(
  "tracing off: a run's trace context still continues the caller's traceparent",
  { timeout: 120_000 },
  () => {
    let fixture: RunFixture;
    before(async () => {
      fixture = await startRunFixture('openai-chat');
    });
    after(() => fixture?.close());

    it("a run created with a traceparent is stored in the caller's trace, its parent the caller's span; without one, in a new trace", async () => {
      const client = clientSpan();
      const traced = await fixture.createRun(
        { systemPrompt: 's', prompt: 'p' },
        { ...fixture.headers, traceparent: client.traceparent, tracestate: 'vendor=1' },
      );
      assert.equal(traced.status, 202, JSON.stringify(traced.body));
      const untraced = await fixture.createRun({ systemPrompt: 's', prompt: 'p' });
      assert.equal(untraced.status, 202, JSON.stringify(untraced.body));
      const workspace = await fixture.server.service.resources.repos.workspaces.findBySlug(fixture.slug);
      assert.ok(workspace);
      const stored = (runId: string) =>
        fixture.server.service.resources.repos.runs.findById(workspace.id, runId);
      const continued = (await stored(traced.body.runId as string))?.traceContext;
      assert.equal(continued?.traceId, client.traceId);
      assert.equal(continued?.parentSpanId, client.spanId);
      assert.equal(continued?.traceState, 'vendor=1');
      assert.match(continued?.spanId ?? '', /^[0-9a-f]{16}$/);
      const fresh = (await stored(untraced.body.runId as string))?.traceContext;
      assert.match(fresh?.traceId ?? '', /^[0-9a-f]{32}$/);
      assert.notEqual(fresh?.traceId, client.traceId);
      assert.equal(fresh?.parentSpanId, null);
    });
  },
);
