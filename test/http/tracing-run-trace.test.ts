import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AGENT_CARD_PATH, startA2aTestPeer } from '../support/a2a-test-peer.ts';
import { SCALE_OUT } from '../support/deployment.ts';
import { answerJson } from '../support/http-tool-server.ts';
import { startMcpTestServer } from '../support/mcp-test-server.ts';
import { SPAN_KIND, STATUS_ERROR, type ReceivedSpan } from '../support/otlp-receiver.ts';
import {
  descendsFrom,
  only,
  parseTraceparent,
  RUNS_ROUTE,
  startTracedService,
  traceRun,
  type TracedService,
} from '../support/traced-service.ts';

describe(
  'OpenTelemetry traces (extensions §3): a run created by REST is one trace',
  { timeout: 180_000 },
  () => {
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
  },
);
