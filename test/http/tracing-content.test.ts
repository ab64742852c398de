import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SPAN_KIND } from '../support/otlp-receiver.ts';
import {
  only,
  parseTraceparent,
  startTracedService,
  traceRun,
  type TracedService,
} from '../support/traced-service.ts';

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
