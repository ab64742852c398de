import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import {
  APICallError,
  RetryError,
  StreamProviderError,
  generateText,
  jsonSchema,
  streamText,
  tool,
} from 'ai';
import type { LanguageModel, ModelMessage, ToolSet } from 'ai';
import type { ProviderApi, ResolvedModel } from '../../src/domain/model.ts';
import { classifyProviderError } from '../../src/providers/error-classification.ts';
import { canonicalFinishReason } from '../../src/providers/finish-reason.ts';
import { createLanguageModel } from '../../src/providers/language-model.ts';
import { createMockLanguageModel } from '../../src/providers/mock-model.ts';
import * as reasoning from '../../src/providers/reasoning.ts';
import * as reasoningLevel from '../../src/domain/reasoning-level.ts';
import { startFakeAnthropic } from '../fakes/fake-anthropic.ts';
import { startFakeOpenAIChat } from '../fakes/fake-openai-chat.ts';
import type { FakeProviderServer, ScriptedReply } from '../fakes/scripted-reply.ts';

const weather = jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } } });
const tools = { get_weather: tool({ description: 'Weather', inputSchema: weather }) } satisfies ToolSet;

interface RunOptions {
  prompt?: string;
  messages?: ModelMessage[];
  tools?: ToolSet;
  /** With `api`, the reasoning settings are passed the way the run engine passes them. */
  level?: number;
  api?: ProviderApi;
  abortSignal?: AbortSignal;
  maxOutputTokens?: number;
}

/** One streamText call as the run engine makes it; an error thrown by the stream becomes a part. */
async function run(model: LanguageModel, { prompt = 'hi', messages, level, api, ...rest }: RunOptions = {}) {
  const settings =
    api === undefined
      ? undefined
      : reasoning.reasoningCallSettings(
          api,
          level ?? null,
          typeof model === 'string' ? model : model.modelId,
        );
  const result = streamText({
    model,
    ...(messages ? { messages } : { prompt }),
    ...rest,
    ...(settings?.providerOptions && { providerOptions: settings.providerOptions }),
    ...(settings?.reasoning && { reasoning: settings.reasoning }),
    maxRetries: 0,
    onError: () => {},
  });
  const parts = [];
  try {
    for await (const part of result.stream) parts.push(part);
  } catch (error) {
    parts.push({ type: 'thrown' as const, error });
  }
  return parts;
}

type Parts = Awaited<ReturnType<typeof run>>;
const deltas = (parts: Parts, type: 'text-delta' | 'reasoning-delta') =>
  parts.flatMap((p) => (p.type === type ? [p.text] : []));
const textOf = (parts: Parts) => deltas(parts, 'text-delta').join('');
const finishOf = (parts: Parts) => parts.find((p) => p.type === 'finish-step');
const canonicalOf = (parts: Parts) =>
  canonicalFinishReason(finishOf(parts)?.finishReason ?? '', finishOf(parts)?.rawFinishReason);
const errorOf = (parts: Parts): unknown =>
  parts.find((p) => p.type === 'error' || p.type === 'thrown')?.error;
const bodyOf = (fake: FakeProviderServer, index = 0) => fake.requests[index]?.body as Record<string, unknown>;

function resolved(api: ProviderApi, overrides: Partial<ResolvedModel> = {}): ResolvedModel {
  const vendorModelId = overrides.vendorModelId ?? 'claude-sonnet-4-5';
  return {
    ...{ id: `acme/${vendorModelId}`, label: vendorModelId, provider: 'acme', vendorModelId },
    ...{ source: 'workspace_provider', contextWindowTokens: 128_000, pricing: null, api, baseUrl: null },
    ...{ apiKey: 'sk-test-key-123456', connectionRef: 'provider:p1', reasoningControl: true, ...overrides },
  };
}

describe('createLanguageModel against the fake servers', () => {
  let openai: FakeProviderServer;
  let anthropic: FakeProviderServer;
  before(
    async () => ([openai, anthropic] = await Promise.all([startFakeOpenAIChat(), startFakeAnthropic()])),
  );
  beforeEach(() => [openai, anthropic].forEach((fake) => fake.reset()));
  after(() => Promise.all([openai.close(), anthropic.close()]));
  const chat = (overrides: Partial<ResolvedModel> = {}) =>
    createLanguageModel(
      resolved('openai-chat', { baseUrl: openai.url, vendorModelId: 'chat-1', ...overrides }),
    );
  const claude = () => createLanguageModel(resolved('anthropic-messages', { baseUrl: anthropic.url }));

  test('openai-chat reaches baseUrl with the model and Bearer key, and reads reasoning_content', async () => {
    openai.enqueue({ thinking: ['Hmm.'], text: ['Hello'] });
    const parts = await run(chat());
    assert.deepEqual([textOf(parts), deltas(parts, 'reasoning-delta').join('')], ['Hello', 'Hmm.']);
    assert.equal(openai.requests[0]?.path, '/v1/chat/completions');
    assert.equal(openai.requests[0]?.headers.authorization, 'Bearer sk-test-key-123456');
    assert.partialDeepStrictEqual(bodyOf(openai), {
      model: 'chat-1',
      stream_options: { include_usage: true },
    });
  });

  test('cached providers never mix connections, and no key sends no Authorization', async () => {
    for (const apiKey of ['sk-first-key-0000', 'sk-second-key-000', 'sk-first-key-0000', null]) {
      await run(chat({ apiKey }));
    }
    assert.deepEqual(
      openai.requests.map((request) => request.headers.authorization),
      ['Bearer sk-first-key-0000', 'Bearer sk-second-key-000', 'Bearer sk-first-key-0000', undefined],
    );
  });

  test('anthropic-messages reaches baseUrl with the model and x-api-key', async () => {
    anthropic.enqueue({ text: ['Hi there'] });
    assert.equal(textOf(await run(claude())), 'Hi there');
    assert.equal(anthropic.requests[0]?.path, '/v1/messages');
    assert.equal(anthropic.requests[0]?.headers['x-api-key'], 'sk-test-key-123456');
    assert.equal(bodyOf(anthropic).model, 'claude-sonnet-4-5');
  });

  test('openai-chat reasoning levels reach the wire as reasoning_effort', async () => {
    for (const level of [80, 20, 0, undefined])
      await run(chat(), { api: 'openai-chat', ...(level === undefined ? {} : { level }) });
    assert.deepEqual(
      openai.requests.map((request) => (request.body as { reasoning_effort?: string }).reasoning_effort),
      ['high', 'low', 'none', undefined],
    );
  });

  test('anthropic: budget_tokens by level, added by the SDK to max_tokens; 0 disables; none sends nothing', async () => {
    await run(claude(), { api: 'anthropic-messages', level: 50 });
    await run(claude(), { api: 'anthropic-messages', level: 100, maxOutputTokens: 1000 });
    await run(claude(), { api: 'anthropic-messages', level: 0 });
    await run(claude(), { api: 'anthropic-messages' });
    const budget = reasoning.anthropicThinkingBudget(50);
    // Without maxOutputTokens the SDK asks for the model's maximum (64k) plus the budget, clamped to 64k.
    assert.partialDeepStrictEqual(bodyOf(anthropic, 0), {
      thinking: { type: 'enabled', budget_tokens: budget },
      max_tokens: 64_000,
    });
    assert.partialDeepStrictEqual(bodyOf(anthropic, 1), {
      thinking: { type: 'enabled', budget_tokens: 24_576 },
      max_tokens: 1000 + 24_576,
    });
    assert.deepEqual(bodyOf(anthropic, 2).thinking, { type: 'disabled' });
    assert.equal('thinking' in bodyOf(anthropic, 3), false);
  });

  test('builds the SDK model of the other protocols', () => {
    const google = createLanguageModel(
      resolved('google-generative-ai', { vendorModelId: 'gemini-2.5-flash' }),
    );
    const responses = createLanguageModel(resolved('openai-responses', { baseUrl: 'http://127.0.0.1:9/v1' }));
    const mock = createLanguageModel(resolved('mock', { vendorModelId: 'echo', apiKey: null }));
    assert.deepEqual(
      [google, responses, mock].map((model) => [model.provider, model.modelId]),
      [
        ['google.generative-ai', 'gemini-2.5-flash'],
        ['openai.responses', 'claude-sonnet-4-5'],
        ['mock', 'echo'],
      ],
    );
  });
});

describe('mock model', () => {
  const echo = createMockLanguageModel('echo');

  test('streams a deterministic echo word by word, with usage and finish reason end_turn', async () => {
    const [first, second] = [
      await run(echo, { prompt: 'hello mock world' }),
      await run(echo, { prompt: 'hello mock world' }),
    ];
    assert.deepEqual(deltas(first, 'text-delta'), ['You ', 'said: ', 'hello ', 'mock ', 'world']);
    assert.deepEqual(deltas(second, 'text-delta'), deltas(first, 'text-delta'));
    assert.equal(canonicalOf(first), 'end_turn');
    assert.equal(finishOf(first)?.usage.outputTokens, Math.ceil('You said: hello mock world'.length / 4));
    assert.equal(finishOf(first)?.usage.inputTokens, Math.ceil('hello mock world'.length / 4));
    assert.match(
      textOf(await run(echo, { messages: [{ role: 'user', content: '' }] })),
      /^Hello! I am the mock/,
    );
  });

  test('calls an offered tool on `call <name> {json}`, then reports the tool result', async () => {
    const parts = await run(echo, { prompt: 'please call get_weather {"city": "Paris"} now', tools });
    const calls = parts.filter((p) => p.type === 'tool-call');
    assert.deepEqual(
      calls.map((c) => [c.toolName, c.input]),
      [['get_weather', { city: 'Paris' }]],
    );
    assert.deepEqual([textOf(parts), canonicalOf(parts)], ['', 'tool_use']);
    const toolCallId = calls[0]?.toolCallId ?? '';
    const call = { toolCallId, toolName: 'get_weather' };
    const messages: ModelMessage[] = [
      { role: 'user', content: 'call get_weather {"city":"Paris"}' },
      { role: 'assistant', content: [{ type: 'tool-call', ...call, input: {} }] },
      {
        role: 'tool',
        content: [{ type: 'tool-result', ...call, output: { type: 'json', value: { c: 21 } } }],
      },
    ];
    assert.equal(textOf(await run(echo, { messages, tools })), 'Tool get_weather returned: {"c":21}');
    const notOffered = await run(echo, { prompt: 'call launch {"now":true}', tools });
    assert.equal(textOf(notOffered), 'You said: call launch {"now":true}');
  });

  test('streams a thought first only when thinking is requested', async () => {
    const thinking = await run(echo, { api: 'mock', level: 50 });
    const firstOf = (type: string) => thinking.findIndex((p) => p.type === type);
    assert.ok(firstOf('reasoning-delta') >= 0 && firstOf('reasoning-delta') < firstOf('text-delta'));
    assert.deepEqual(deltas(await run(echo, { api: 'mock', level: 0 }), 'reasoning-delta'), []);
  });

  test('maxOutputTokens truncates the reply with max_tokens', async () => {
    const parts = await run(echo, { prompt: 'one two three four five six', maxOutputTokens: 4 });
    assert.deepEqual([textOf(parts), canonicalOf(parts)], ['You said: one ', 'max_tokens']);
  });

  test('slow-echo pauses between chunks and stops on abort', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const prompt = Array.from({ length: 30 }, (_, index) => `w${index}`).join(' ');
    const seen: string[] = [];
    const slow = createMockLanguageModel('slow-echo');
    for await (const part of streamText({ model: slow, prompt, abortSignal: controller.signal }).stream) {
      if (part.type === 'text-delta' && seen.push(part.text) === 3) controller.abort();
      if (part.type === 'abort') seen.push('<abort>');
    }
    assert.deepEqual(seen, ['You ', 'said: ', 'w0 ', '<abort>']);
    assert.ok(Date.now() - started >= 45);
    const aborted = await run(echo, { abortSignal: AbortSignal.abort() });
    assert.deepEqual([textOf(aborted), aborted.some((p) => p.type === 'abort')], ['', true]);
  });

  test('doGenerate answers the same reply', async () => {
    const result = await generateText({ model: echo, prompt: 'same', maxRetries: 0 });
    assert.deepEqual([result.text, result.finishReason], ['You said: same', 'stop']);
  });
});

describe('classifyProviderError', () => {
  let openai: FakeProviderServer;
  let anthropic: FakeProviderServer;
  before(
    async () => ([openai, anthropic] = await Promise.all([startFakeOpenAIChat(), startFakeAnthropic()])),
  );
  after(() => Promise.all([openai.close(), anthropic.close()]));

  /** The real error the SDK produces against a fake for one scripted reply. */
  async function sdkError(fake: FakeProviderServer, reply: ScriptedReply) {
    fake.reset();
    fake.enqueue(reply);
    const api = fake === openai ? 'openai-chat' : 'anthropic-messages';
    const error = errorOf(await run(createLanguageModel(resolved(api, { baseUrl: fake.url }))));
    assert.ok(APICallError.isInstance(error), `expected an APICallError, got ${String(error)}`);
    return error;
  }
  const classify = async (fake: FakeProviderServer, reply: ScriptedReply) =>
    classifyProviderError(await sdkError(fake, reply));
  type HttpErrorExtra = Omit<Extract<ScriptedReply, { type: 'http-error' }>, 'type' | 'status'>;
  const httpError = (status: number, extra: HttpErrorExtra = {}) =>
    ({ type: 'http-error', status, ...extra }) as const;
  const contextBody = {
    error: { message: 'maximum context length is 128000 tokens', code: 'context_length_exceeded' },
  };

  // [fake, reply, errorClass, retryable, apiCode]: one per status class, as the SDK reports them.
  const cases: [() => FakeProviderServer, ScriptedReply, string, boolean, string | undefined][] = [
    [() => anthropic, httpError(429), 'rate_limit', true, 'rate_limit_error'],
    [() => anthropic, httpError(529), 'overloaded', true, 'overloaded_error'],
    [() => openai, httpError(503), 'overloaded', true, 'service_unavailable'],
    [() => anthropic, httpError(500), 'server', true, 'api_error'],
    [() => openai, httpError(408), 'timeout', true, 'invalid_request_error'],
    [() => openai, httpError(504), 'upstream_deadline', true, 'server_error'],
    [() => openai, httpError(401), 'auth', false, 'invalid_api_key'],
    [() => anthropic, httpError(403), 'auth', false, 'permission_error'],
    [
      () => anthropic,
      httpError(400, { message: 'bad role' }),
      'invalid_request',
      false,
      'invalid_request_error',
    ],
    [() => openai, httpError(400, { body: contextBody }), 'context_window', false, 'context_length_exceeded'],
    [
      () => anthropic,
      httpError(400, { message: 'prompt is too long: 210000 tokens' }),
      'context_window',
      false,
      'invalid_request_error',
    ],
    [() => openai, { text: ['a', 'b', 'c'], dropAfterChunks: 2 }, 'server', true, undefined],
  ];
  for (const [fake, reply, errorClass, retryable, apiCode] of cases) {
    const status = reply.type === 'http-error' ? reply.status : 'dropped stream';
    test(`${status} ${apiCode ?? ''} → ${errorClass}`, async () => {
      const failure = await classify(fake(), reply);
      assert.deepEqual(
        [failure.errorClass, failure.retryable, failure.apiCode],
        [errorClass, retryable, apiCode],
      );
      assert.equal(failure.apiStatus, reply.type === 'http-error' ? reply.status : undefined);
      if (reply.type !== 'http-error') assert.match(failure.message, /response ended unexpectedly/);
    });
  }

  test('retry-after: 2 gives 2000 ms; retry-after-ms wins; an HTTP date is read; keys are redacted', async () => {
    const slowDown = await classify(
      anthropic,
      httpError(429, { message: 'Slow', headers: { 'retry-after': '2' } }),
    );
    assert.deepEqual([slowDown.message, slowDown.retryAfterMs], ['Slow', 2000]);
    const headers = { 'retry-after-ms': '1500', 'retry-after': '2' };
    assert.equal((await classify(openai, httpError(429, { headers }))).retryAfterMs, 1500);
    const sent = Date.now();
    const date = new Date(sent + 10_000).toUTCString();
    const { retryAfterMs = 0 } = await classify(openai, httpError(429, { headers: { 'retry-after': date } }));
    // The time left until that date (to its second) when the error was classified, however long that took.
    const until = Date.parse(date);
    assert.ok(retryAfterMs <= until - sent && retryAfterMs >= until - Date.now(), `${retryAfterMs} ms`);
    const leaked = await classify(
      openai,
      httpError(401, { message: 'Incorrect API key: sk-test-key-123456.' }),
    );
    assert.equal(leaked.message, 'Incorrect API key: [redacted].');
  });

  test('a refused connection is a retryable server error', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const model = createLanguageModel(resolved('openai-chat', { baseUrl: `http://127.0.0.1:${port}/v1` }));
    const failure = classifyProviderError(errorOf(await run(model)));
    assert.deepEqual(
      [failure.errorClass, failure.retryable, /ECONNREFUSED/.test(failure.message)],
      ['server', true, true],
    );
  });

  test('Google bodies: status as apiCode, token-count context errors, RetryInfo delays', () => {
    const google = (statusCode: number, error: Record<string, unknown>) =>
      new APICallError({
        message: 'x',
        url: 'http://127.0.0.1/',
        requestBodyValues: {},
        statusCode,
        responseBody: JSON.stringify({ error }),
      });
    const message = 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).';
    assert.partialDeepStrictEqual(
      classifyProviderError(google(400, { code: 400, message, status: 'INVALID_ARGUMENT' })),
      {
        errorClass: 'context_window',
        apiCode: 'INVALID_ARGUMENT',
        message,
      },
    );
    const details = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3s' }];
    const exhausted = google(429, { code: 429, message: 'exhausted', status: 'RESOURCE_EXHAUSTED', details });
    assert.partialDeepStrictEqual(classifyProviderError(exhausted), {
      errorClass: 'rate_limit',
      retryAfterMs: 3000,
    });
  });

  test('mid-stream provider errors and retry wrappers classify like the HTTP error', async () => {
    const midStream = new StreamProviderError({
      message: 'Overloaded',
      type: 'overloaded_error',
      statusCode: 529,
    });
    assert.partialDeepStrictEqual(classifyProviderError(midStream), {
      errorClass: 'overloaded',
      apiCode: 'overloaded_error',
    });
    const error = await sdkError(anthropic, httpError(429));
    const wrapped = new RetryError({ message: 'failed', reason: 'maxRetriesExceeded', errors: [error] });
    assert.deepEqual(classifyProviderError(wrapped), classifyProviderError(error));
  });
});

describe('canonicalFinishReason', () => {
  test('unified reasons map to the spec; malformed_function_call wins; else the raw reason or null', () => {
    const cases: [string, string | undefined, string | null][] = [
      ['stop', 'end_turn', 'end_turn'],
      ['tool-calls', 'STOP', 'tool_use'],
      ['length', 'MAX_TOKENS', 'max_tokens'],
      ['content-filter', 'SAFETY', 'refusal'],
      ['error', 'MALFORMED_FUNCTION_CALL', 'malformed_function_call'],
      ['other', 'pause_turn', 'pause_turn'],
      ['other', undefined, null],
    ];
    for (const [unified, raw, expected] of cases) assert.equal(canonicalFinishReason(unified, raw), expected);
  });

  test('max_tokens, refusal and tool_use turns from the fake', async () => {
    const fake = await startFakeAnthropic([
      { text: ['cut'], finishReason: 'max_tokens' },
      { text: ['no'], finishReason: 'refusal' },
      { toolCalls: [{ id: 't1', name: 'get_weather', input: { city: 'Oslo' } }] },
    ]);
    const model = createLanguageModel(resolved('anthropic-messages', { baseUrl: fake.url }));
    const reasons = [];
    for (let index = 0; index < 3; index++) reasons.push(canonicalOf(await run(model, { tools })));
    await fake.close();
    assert.deepEqual(reasons, ['max_tokens', 'refusal', 'tool_use']);
  });
});

describe('reasoning levels', () => {
  test('labels normalize to 0/30/50/80, integers pass through; label boundaries 0/1-35/36-65/66-100', () => {
    assert.deepEqual(
      (['off', 'low', 'medium', 'high', 0, 7, 100] as const).map(reasoningLevel.normalizeReasoningLevel),
      [0, 30, 50, 80, 0, 7, 100],
    );
    assert.deepEqual([0, 1, 35, 36, 65, 66, 100].map(reasoningLevel.reasoningEffortLabel), [
      'off',
      'low',
      'low',
      'medium',
      'medium',
      'high',
      'high',
    ]);
  });

  test('each provider gets its own control', () => {
    assert.deepEqual(reasoning.reasoningCallSettings('openai-responses', 90, 'gpt-5'), {
      ...{ reasoning: 'high', exposesThinking: true },
      providerOptions: { openai: { reasoningEffort: 'high', reasoningSummary: 'auto' } },
    });
    // At 0 the SDK picks none/minimal/low per OpenAI model from `reasoning: 'none'`.
    assert.deepEqual(reasoning.reasoningCallSettings('openai-responses', 0, 'gpt-5'), {
      reasoning: 'none',
      exposesThinking: false,
      providerOptions: { openai: { reasoningSummary: null } },
    });
    assert.deepEqual(
      reasoning.reasoningCallSettings('google-generative-ai', 10, 'gemini-3-pro').providerOptions,
      {
        google: { thinkingConfig: { includeThoughts: true } },
      },
    );
    assert.deepEqual(reasoning.reasoningCallSettings('mock', 0, 'echo').providerOptions, {
      mock: { thinking: false },
    });
  });

  test('no level in the spec is thinking off, sent only where no model can reject it', () => {
    const omitted = (api: ProviderApi, vendorModelId: string) =>
      reasoning.reasoningCallSettings(api, null, vendorModelId);
    // Where the SDK knows which models reason, or the model family thinks by default: as level 0.
    assert.deepEqual(
      omitted('openai-responses', 'gpt-5'),
      reasoning.reasoningCallSettings('openai-responses', 0, 'gpt-5'),
    );
    assert.deepEqual(
      omitted('google-generative-ai', 'gemini-2.5-flash'),
      reasoning.reasoningCallSettings('google-generative-ai', 0, 'gemini-2.5-flash'),
    );
    assert.deepEqual(omitted('mock', 'echo').providerOptions, { mock: { thinking: false } });
    // Nothing where thinking is already off by default or a parameter could be refused.
    for (const [api, model] of [
      ['anthropic-messages', 'claude-sonnet-4-5'],
      ['openai-chat', 'gpt-4o'],
      ['google-generative-ai', 'gemini-2.0-flash'],
      ['google-generative-ai', 'my-tuned-model'],
    ] as const) {
      assert.deepEqual(omitted(api, model), { exposesThinking: false }, `${api} ${model}`);
    }
  });

  test('Gemini models before 2.5 have no thinking control: a level is reported but not sent', () => {
    assert.deepEqual(
      [
        'gemini-2.5-flash',
        'models/gemini-2.5-pro',
        'gemini-3-pro-preview',
        'gemini-2.0-flash',
        'gemini-1.5-pro',
        'gemma-3-27b-it',
        'tuned-x',
      ].map(reasoning.geminiThinkingControl),
      ['yes', 'yes', 'yes', 'no', 'no', 'no', 'unknown'],
    );
    assert.deepEqual(reasoning.reasoningCallSettings('google-generative-ai', 80, 'gemini-2.0-flash'), {
      exposesThinking: false,
    });
    assert.equal(reasoning.anthropicThinkingBudget(1), 1024);
  });
});
