import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sendBody } from '../a2a/a2a-support.ts';
import { SPAN_KIND, type ReceivedSpan } from '../support/otlp-receiver.ts';
import {
  clientSpan,
  isRunSpan,
  only,
  SESSIONS_ROUTE,
  startTracedService,
  TOOL_RESULTS_ROUTE,
  untilExported,
  type TracedService,
} from '../support/traced-service.ts';
import { eventually } from '../support/waits.ts';

describe(
  'OpenTelemetry traces (extensions §3): runs started by a session message, a hosted A2A message, and a client tool answered by another request',
  { timeout: 180_000 },
  () => {
    let service: TracedService;
    before(async () => {
      service = await startTracedService({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' });
    });
    after(() => service?.close());

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
      assert.match(
        String(server.attributes['http.route']),
        /^\/api\/a2a\/:workspaceSlug\/agents\/:agentSlug/,
      );
      const run = only(trace, isAgentRun, 'run span');
      assert.equal(run.name, 'invoke_agent Helper');
      assert.equal(run.parentSpanId, server.spanId);
      assert.equal(run.attributes['gen_ai.agent.name'], 'Helper');
      assert.equal(
        typeof run.attributes['gen_ai.conversation.id'],
        'string',
        'the A2A context has a session',
      );
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
  },
);
