import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { FakeProviderServer, RecordedRequest } from '../fakes/scripted-reply.ts';
import {
  onlyError,
  assertPlainHelloWorldRun,
  assertTruncatedOnceUponATime,
  ofType,
  startRunFixture,
  types,
  type RunFixture,
} from '../support/run-fixture.ts';
import { weatherRoundTrip } from '../tools/tool-support.ts';

/** The Responses API request body as the fake recorded it. */
type ResponsesBody = {
  model: string;
  stream: boolean;
  input: Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON
  reasoning?: { effort?: string; summary?: string };
  tools?: Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON
  tool_choice?: unknown;
};

const bodyOf = (request: RecordedRequest | undefined): ResponsesBody => {
  if (!request) throw new Error('no such provider request');
  return request.body as ResponsesBody;
};

describe('OpenAI Responses protocol through a run', { timeout: 120_000 }, () => {
  let fake: FakeProviderServer;
  let fixture: RunFixture;

  before(async () => {
    fixture = await startRunFixture('openai-responses', {
      model: { vendorModelId: 'gpt-5-mini', apiKey: 'sk-fake' },
      engine: { shutdownGraceMs: 200 },
    });
    ({ fake } = fixture);
  });
  after(() => fixture?.close());
  afterEach(() => fixture.cleanUp());

  it('a plain reply streams deltas, one assistant_message (end_turn) and a result with usage in its buckets', async () => {
    fake.enqueue({
      text: ['Hello', ', world.'],
      usage: { inputTokens: 100, cachedTokens: 60, outputTokens: 20, reasoningTokens: 5 },
    });
    const { frames } = await fixture.runToEnd({ systemPrompt: 'You are terse.', prompt: 'hi' });

    assertPlainHelloWorldRun(frames, 'gpt-5-mini');

    assert.equal(fake.requests.length, 1);
    const request = fake.requests[0];
    assert.equal(request?.method, 'POST');
    assert.equal(request?.path, '/v1/responses');
    assert.equal(request?.headers.authorization, 'Bearer sk-fake');
    const body = bodyOf(request);
    assert.equal(body.model, 'gpt-5-mini');
    assert.equal(body.stream, true);
    // Without a level thinking is off: the SDK maps it onto gpt-5-mini's lowest effort.
    assert.deepEqual(body.reasoning, { effort: 'minimal' }, 'thinking off, no summaries');
    // gpt-5-mini is a reasoning model: the system prompt goes as a developer message.
    assert.deepEqual(body.input[0], { role: 'developer', content: 'You are terse.' });
    assert.deepEqual(body.input.at(-1), { role: 'user', content: [{ type: 'input_text', text: 'hi' }] });
  });

  it("reasoningLevel 'high' reaches the wire as reasoning.effort high; summaries stream as thinking_delta", async () => {
    fake.enqueue({
      thinking: ['Weighing ', 'the options.'],
      text: ['Answer.'],
      usage: { inputTokens: 50, outputTokens: 40, reasoningTokens: 30 },
    });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', reasoningLevel: 'high' });

    const body = bodyOf(fake.requests.at(-1));
    assert.equal(body.reasoning?.effort, 'high');
    assert.equal(body.reasoning?.summary, 'auto', 'summaries are asked for, so thoughts can be streamed');
    assert.deepEqual(
      ofType(frames, 'thinking_delta').map((frame) => frame.data.data.text),
      ['Weighing ', 'the options.'],
    );
    assert.deepEqual(types(frames), [
      'thinking_delta',
      'thinking_delta',
      'assistant_delta',
      'assistant_message',
      'result',
    ]);
    const result = frames.at(-1)?.data.data;
    assert.equal(result?.text, 'Answer.');
    assert.equal(result?.model.reasoningEffort, 'high');
    assert.equal(result?.tokens.reasoningTokens, 30);
    assert.equal(result?.tokens.outputTokens, 40);
  });

  it('reasoningLevel 0 sends the lowest effort gpt-5-mini accepts (minimal) and streams no thinking_delta', async () => {
    // Even if the provider streams a summary, level 0 must not surface it.
    fake.enqueue({ thinking: ['hidden thoughts'], text: ['Quick answer.'] });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', reasoningLevel: 0 });

    const body = bodyOf(fake.requests.at(-1));
    // The SDK maps `reasoning: 'none'` onto gpt-5-mini's efforts (minimal, low, medium, high).
    assert.equal(body.reasoning?.effort, 'minimal');
    assert.equal(body.reasoning?.summary, undefined, 'level 0 asks for no reasoning summaries');
    assert.deepEqual(types(frames), ['assistant_delta', 'assistant_message', 'result']);
    assert.ok(!types(frames).includes('thinking_delta'));
    assert.equal(frames.at(-1)?.data.data.text, 'Quick answer.');
    assert.equal(frames.at(-1)?.data.data.model.reasoningEffort, 'off');
  });

  it('a local tool call round trip: function_call → local_tool_call → tool-results → function_call_output', async () => {
    fake.enqueue(
      {
        thinking: ['I should look it up.'],
        toolCalls: [{ id: 'call_weather_1', name: 'get_weather', input: { city: 'Paris' } }],
        usage: { inputTokens: 30, outputTokens: 10 },
      },
      { text: ['Sunny in Paris.'], usage: { inputTokens: 60, cachedTokens: 20, outputTokens: 5 } },
    );
    await weatherRoundTrip(fixture);

    assert.equal(fake.requests.length, 2);
    const first = bodyOf(fake.requests[0]);
    const tool = first.tools?.find((entry) => entry.name === 'get_weather');
    assert.equal(tool?.type, 'function');
    assert.deepEqual(tool?.parameters?.required, ['city']);

    const input = bodyOf(fake.requests[1]).input;
    const callIndex = input.findIndex((item) => item.type === 'function_call');
    const outputIndex = input.findIndex((item) => item.type === 'function_call_output');
    assert.ok(callIndex >= 0, `the assistant's function_call is replayed: ${JSON.stringify(input)}`);
    assert.deepEqual(
      { ...input[callIndex], arguments: JSON.parse(input[callIndex]?.arguments) },
      {
        type: 'function_call',
        call_id: 'call_weather_1',
        name: 'get_weather',
        arguments: { city: 'Paris' },
      },
    );
    assert.ok(outputIndex > callIndex, 'the output follows its call');
    assert.deepEqual(input[outputIndex], {
      type: 'function_call_output',
      call_id: 'call_weather_1',
      output: '21C and sunny',
    });
    // A reasoning model's function_call must be preceded by its reasoning item (stored: a reference).
    const reasoningRef = input[callIndex - 1];
    assert.equal(reasoningRef?.type, 'item_reference');
    assert.match(String(reasoningRef?.id), /^rs_/);
  });

  it('max tokens (response.incomplete, max_output_tokens) ends in a truncation error with partialText', async () => {
    fake.enqueue({ text: ['Once upon ', 'a time'], finishReason: 'max_tokens' });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'story' });

    assertTruncatedOnceUponATime(frames);
  });

  it('a 429 with retry-after-ms is retried after the hinted delay and the run succeeds', async () => {
    fake.enqueue(
      {
        type: 'http-error',
        status: 429,
        headers: { 'retry-after-ms': '150' },
        message: 'Rate limit reached',
      },
      { text: ['recovered'] },
    );
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });

    assert.deepEqual(types(frames), ['assistant_delta', 'assistant_message', 'result']);
    assert.equal(frames.at(-1)?.data.data.text, 'recovered');
    assert.equal(frames.at(-1)?.data.data.turns, 1);
    assert.equal(fake.requests.length, 2);
    const gap = (fake.requests[1]?.receivedAt ?? 0) - (fake.requests[0]?.receivedAt ?? 0);
    assert.ok(gap >= 140, `the retry waited for retry-after-ms (${gap} ms)`);
  });

  it('a 401 is not retried: errorClass auth with the OpenAI status and code', async () => {
    fake.enqueue({ type: 'http-error', status: 401, message: 'Incorrect API key provided' });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });

    onlyError(frames, { errorClass: 'auth', retryable: false, apiStatus: 401, apiCode: 'invalid_api_key' });
    assert.equal(fake.requests.length, 1);
  });

  it('a refusal (refusal deltas) is reported with finishReason refusal', async () => {
    fake.enqueue({ text: ['I cannot help with that.'], finishReason: 'refusal' });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });

    const message = ofType(frames, 'assistant_message')[0]?.data.data;
    assert.equal(message?.finishReason, 'refusal');
    assert.equal(message?.text, 'I cannot help with that.');
    assert.equal(types(frames).at(-1), 'result');
  });
});
