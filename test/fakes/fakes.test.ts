import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  APICallError,
  generateText,
  jsonSchema,
  streamText,
  tool,
  type JSONValue,
  type LanguageModel,
  type ModelMessage,
  type ToolSet,
} from 'ai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { startFakeAnthropic } from './fake-anthropic.ts';
import { startFakeOpenAIChat } from './fake-openai-chat.ts';
import type { FakeProviderServer, ScriptedTurn } from './scripted-reply.ts';

// A client-resolved tool: no execute, so streamText stops after the model's tool call.
const tools = {
  get_weather: tool({
    description: 'Current weather for a city',
    inputSchema: jsonSchema<{ city: string }>({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    }),
  }),
} satisfies ToolSet; // without the contextual type, an execute-less tool() fails ToolSet under exactOptionalPropertyTypes

const fullTurn: ScriptedTurn = {
  thinking: ['Let me ', 'check.'],
  text: ['Hello', ', world'],
  toolCalls: [{ id: 'call_1', name: 'get_weather', input: { city: 'Paris', days: [1, 2] } }],
  usage: { inputTokens: 100, outputTokens: 50, cachedTokens: 40, reasoningTokens: 20 },
};

const silent = () => {};

interface RunOptions {
  providerOptions?: Record<string, Record<string, JSONValue>>;
  abortSignal?: AbortSignal;
  messages?: ModelMessage[];
}

async function run(model: LanguageModel, { messages, ...options }: RunOptions = {}) {
  const prompt = messages ? { messages } : { prompt: 'hi' };
  const result = streamText({ model, tools, maxRetries: 0, onError: silent, ...prompt, ...options });
  const parts = [];
  for await (const part of result.stream) parts.push(part);
  return parts;
}

type Parts = Awaited<ReturnType<typeof run>>;
const textOf = (parts: Parts) => parts.flatMap((p) => (p.type === 'text-delta' ? [p.text] : [])).join('');
const reasoningOf = (parts: Parts) =>
  parts.flatMap((p) => (p.type === 'reasoning-delta' ? [p.text] : [])).join('');
const finishOf = (parts: Parts) => parts.find((p) => p.type === 'finish');
const errorOf = (parts: Parts) => parts.find((p) => p.type === 'error')?.error;

function assertFullTurn(parts: Parts, rawFinishReason: string) {
  assert.equal(reasoningOf(parts), 'Let me check.');
  assert.equal(textOf(parts), 'Hello, world');
  const calls = parts.filter((p) => p.type === 'tool-call');
  assert.deepEqual(
    calls.map((c) => [c.toolCallId, c.toolName, c.input]),
    [['call_1', 'get_weather', { city: 'Paris', days: [1, 2] }]],
  );
  const finish = finishOf(parts);
  assert.equal(finish?.finishReason, 'tool-calls');
  assert.equal(finish?.rawFinishReason, rawFinishReason);
  assert.equal(finish?.totalUsage.inputTokens, 100);
  assert.equal(finish?.totalUsage.inputTokenDetails.cacheReadTokens, 40);
  assert.equal(finish?.totalUsage.inputTokenDetails.noCacheTokens, 60);
  assert.equal(finish?.totalUsage.outputTokens, 50);
  assert.equal(finish?.totalUsage.outputTokenDetails.reasoningTokens, 20);
}

describe('fake OpenAI chat server', () => {
  let fake: FakeProviderServer;
  let model: LanguageModel;
  before(async () => {
    fake = await startFakeOpenAIChat();
    model = createOpenAICompatible({ baseURL: fake.url, name: 'x', apiKey: 'k', includeUsage: true })(
      'fake-1',
    );
  });
  beforeEach(() => fake.reset());
  after(() => fake.close());

  test('streams reasoning_content, text, tool calls, finish reason and usage', async () => {
    fake.enqueue(fullTurn);
    assertFullTurn(
      await run(model, { providerOptions: { openaiCompatible: { reasoningEffort: 'high' } } }),
      'tool_calls',
    );
    const [request] = fake.requests;
    assert.equal(request?.path, '/v1/chat/completions');
    assert.equal(request?.headers.authorization, 'Bearer k');
    assert.partialDeepStrictEqual(request?.body, {
      model: 'fake-1',
      stream: true,
      stream_options: { include_usage: true },
      reasoning_effort: 'high',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'get_weather' } }],
    });
  });

  test('maps neutral finish reasons', async () => {
    fake.enqueue(
      { text: ['a'], finishReason: 'max_tokens' },
      { text: ['b'], finishReason: 'refusal' },
      { text: ['c'] },
    );
    assert.equal(finishOf(await run(model))?.finishReason, 'length');
    assert.equal(finishOf(await run(model))?.finishReason, 'content-filter');
    assert.equal(finishOf(await run(model))?.finishReason, 'stop');
    assert.equal(
      finishOf(await run(model))?.finishReason,
      'stop',
      'the last reply repeats once the queue is empty',
    );
    assert.equal(fake.requests.length, 4);
  });

  test('an HTTP error surfaces as an APICallError with status and headers', async () => {
    fake.enqueue({ type: 'http-error', status: 429, headers: { 'retry-after': '7' } });
    const error = errorOf(await run(model));
    assert.ok(APICallError.isInstance(error));
    assert.equal(error.statusCode, 429);
    assert.equal(error.isRetryable, true);
    assert.equal(error.responseHeaders?.['retry-after'], '7');
    assert.deepEqual(JSON.parse(error.responseBody ?? ''), {
      error: { message: 'Scripted error 429', type: 'requests', param: null, code: 'rate_limit_exceeded' },
    });
  });

  test('a dropped connection fails the stream after the chunks already sent', async () => {
    fake.enqueue({ text: ['a', 'b', 'c', 'd'], dropAfterChunks: 2 });
    const seen: string[] = [];
    await assert.rejects(async () => {
      for await (const part of streamText({ model, prompt: 'hi', maxRetries: 0, onError: silent }).stream) {
        if (part.type === 'text-delta') seen.push(part.text);
      }
    }, /terminated|Failed to process/);
    assert.deepEqual(seen, ['a', 'b']);
  });

  test('answers non-streaming requests with a chat.completion', async () => {
    fake.enqueue({ thinking: ['t'], text: ['x', 'y'], usage: { inputTokens: 3, outputTokens: 2 } });
    const result = await generateText({ model, prompt: 'hi', maxRetries: 0 });
    assert.equal(result.text, 'xy');
    assert.equal(result.reasoningText, 't');
    assert.equal(result.usage.totalTokens, 5);
    assert.equal((fake.requests[0]?.body as { stream?: boolean }).stream, undefined);
  });

  test('works with the official @ai-sdk/openai chat model', async () => {
    fake.enqueue(fullTurn);
    const openai = createOpenAI({ baseURL: fake.url, apiKey: 'k' });
    const parts = await run(openai.chat('gpt-4o'));
    assert.equal(textOf(parts), 'Hello, world');
    assert.equal(parts.filter((p) => p.type === 'tool-call').length, 1);
    assert.equal(finishOf(parts)?.totalUsage.inputTokenDetails.cacheReadTokens, 40);
  });
});

describe('fake Anthropic server', () => {
  let fake: FakeProviderServer;
  let model: LanguageModel;
  before(async () => {
    fake = await startFakeAnthropic();
    model = createAnthropic({ baseURL: fake.url, apiKey: 'k' })('claude-sonnet-4-5');
  });
  beforeEach(() => fake.reset());
  after(() => fake.close());

  test('streams thinking with signature, text, tool_use, stop reason and usage', async () => {
    fake.enqueue({ ...fullTurn, thinkingSignature: 'sig-1' });
    const thinking = { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } };
    const parts = await run(model, { providerOptions: thinking });
    assertFullTurn(parts, 'tool_use');
    const signed = parts
      .filter((p) => p.type === 'reasoning-delta')
      .find((p) => p.providerMetadata !== undefined);
    assert.deepEqual(signed?.providerMetadata, { anthropic: { signature: 'sig-1' } });
    const [request] = fake.requests;
    assert.equal(request?.path, '/v1/messages');
    assert.equal(request?.headers['x-api-key'], 'k');
    assert.partialDeepStrictEqual(request?.body, {
      model: 'claude-sonnet-4-5',
      stream: true,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      tools: [{ name: 'get_weather' }],
    });
  });

  test('records tool results and file parts sent back to the model', async () => {
    const messages: ModelMessage[] = [
      {
        role: 'user',
        content: [{ type: 'file', data: Buffer.from('%PDF-1.4'), mediaType: 'application/pdf' }],
      },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_1',
            toolName: 'get_weather',
            output: { type: 'json', value: { tempC: 21 } },
          },
        ],
      },
    ];
    await run(model, { messages });
    assert.partialDeepStrictEqual(fake.requests[0]?.body, {
      messages: [
        {
          role: 'user',
          content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf' } }],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather' }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: '{"tempC":21}' }] },
      ],
    });
  });

  test('maps neutral finish reasons', async () => {
    fake.enqueue(
      { text: ['a'], finishReason: 'max_tokens' },
      { text: ['b'], finishReason: 'refusal' },
      { text: ['c'] },
    );
    assert.equal(finishOf(await run(model))?.finishReason, 'length');
    assert.equal(finishOf(await run(model))?.finishReason, 'content-filter');
    assert.equal(finishOf(await run(model))?.finishReason, 'stop');
  });

  for (const [status, type, retryable] of [
    [529, 'overloaded_error', true],
    [429, 'rate_limit_error', true],
    [400, 'invalid_request_error', false],
  ] as const) {
    test(`a ${status} surfaces as an APICallError (${type})`, async () => {
      fake.enqueue({ type: 'http-error', status, message: 'nope', headers: { 'retry-after': '2' } });
      const error = errorOf(await run(model));
      assert.ok(APICallError.isInstance(error));
      assert.equal(error.statusCode, status);
      assert.equal(error.message, 'nope');
      assert.equal(error.isRetryable, retryable);
      assert.equal(error.responseHeaders?.['retry-after'], '2');
      assert.partialDeepStrictEqual(error.data, { type: 'error', error: { type, message: 'nope' } });
    });
  }

  test('a hung request records the client giving up', async () => {
    fake.enqueue({ type: 'hang' });
    const parts = await run(model, { abortSignal: AbortSignal.timeout(100) });
    assert.equal(parts.at(-1)?.type, 'abort');
    await fake.waitForRequests(1);
    await fake.waitUntil(
      () => fake.requests[0]?.closedByClient === true,
      'the client closed the hung request',
    );
  });

  test('honours firstChunkDelayMs and chunkIntervalMs', async () => {
    fake.enqueue({ text: ['a', 'b'], firstChunkDelayMs: 80, chunkIntervalMs: 10 });
    const started = Date.now();
    const parts = await run(model);
    assert.equal(textOf(parts), 'ab');
    assert.ok(Date.now() - started >= 80 + 10 * 5);
  });

  test('answers non-streaming requests with a message', async () => {
    fake.enqueue({ text: ['x'], toolCalls: [{ id: 't1', name: 'get_weather', input: { city: 'Oslo' } }] });
    const result = await generateText({ model, prompt: 'hi', tools, maxRetries: 0 });
    assert.equal(result.text, 'x');
    assert.deepEqual(result.toolCalls[0]?.input, { city: 'Oslo' });
    assert.equal(result.finishReason, 'tool-calls');
  });
});

describe('raw replay of a recorded response', () => {
  let fake: FakeProviderServer;
  before(async () => {
    fake = await startFakeOpenAIChat();
  });
  after(() => fake.close());
  beforeEach(() => fake.reset());

  const post = () =>
    fetch(`${fake.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"stream":true}',
    });

  /** The body as the client reads it: the byte length of each read, and the bytes. */
  async function reads(response: Response): Promise<{ sizes: number[]; bytes: Buffer }> {
    const sizes: number[] = [];
    const chunks: Buffer[] = [];
    for await (const chunk of response.body ?? []) {
      sizes.push(chunk.length);
      chunks.push(Buffer.from(chunk));
    }
    return { sizes, bytes: Buffer.concat(chunks) };
  }

  test('replays the status line, the headers as given and the body byte for byte', async () => {
    fake.enqueue({
      type: 'raw',
      status: 504,
      statusText: 'Upstream Timeout',
      headers: { 'content-type': 'text/plain', 'retry-after': '7', 'x-custom': 'a' },
      body: 'upstream request timeout',
    });
    const response = await post();
    assert.equal(response.status, 504);
    assert.equal(response.statusText, 'Upstream Timeout');
    assert.equal(response.headers.get('retry-after'), '7');
    assert.equal(response.headers.get('x-custom'), 'a');
    assert.equal(response.headers.get('date'), null, 'no header the recording does not have');
    assert.equal(await response.text(), 'upstream request timeout');
    assert.equal(fake.requests[0]?.rawBody, '{"stream":true}', 'the request is recorded as usual');
  });

  test('each write reaches the client as a read of its own, wherever it splits (inside a UTF-8 character, a CRLF)', async () => {
    const body = 'data: {"a":"é"}\r\n\r\n';
    const splitAt = [3, Buffer.byteLength('data: {"a":"') + 1, Buffer.byteLength('data: {"a":"é"}\r')];
    fake.enqueue({
      type: 'raw',
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body,
      splitAt,
    });
    const { sizes, bytes } = await reads(await post());
    assert.deepEqual(sizes, [3, 10, 4, 3]);
    assert.equal(bytes.toString('utf8'), body);
  });

  test('dropAfterBytes: the client gets that many bytes, then a premature end of the body', async () => {
    const body = 'data: {"a":1}\n\ndata: {"a":2}\n\n';
    fake.enqueue({
      type: 'raw',
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body,
      dropAfterBytes: 20,
    });
    const response = await post();
    const received: Buffer[] = [];
    const failure = await (async () => {
      for await (const chunk of response.body ?? []) received.push(Buffer.from(chunk));
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.equal(Buffer.concat(received).toString('utf8'), body.slice(0, 20));
    assert.ok(failure instanceof TypeError, `a premature end of the body, got ${String(failure)}`);
    await fake.waitUntil(() => fake.requests[0]?.respondedAt !== undefined, 'the reply ended');
    assert.equal(fake.requests[0]?.closedByClient, false, 'the fake cut it, not the client');
  });
});
