import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { RecordedRequest, ScriptedReply, ScriptedTurn } from '../fakes/scripted-reply.ts';
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

// The cases every hosted provider protocol answers the same way through a run, run once for each fake
// provider; each protocol supplies its wire checks. What only one protocol does stays in its own suite
// (run-google.test.ts, run-protocols.test.ts).

/* eslint-disable @typescript-eslint/no-explicit-any -- wire JSON */
/** The Responses API request body as the fake recorded it. */
type ResponsesBody = {
  model: string;
  stream: boolean;
  input: Array<Record<string, any>>;
  reasoning?: { effort?: string; summary?: string };
  tools?: Array<Record<string, any>>;
  tool_choice?: unknown;
};

/** A Gemini `generateContent` request body as the fake recorded it. */
type GeminiBody = {
  contents: Array<{ role: string; parts: Array<Record<string, any>> }>;
  systemInstruction?: { parts: Array<{ text: string }> };
  generationConfig?: { thinkingConfig?: Record<string, any>; maxOutputTokens?: number };
  tools?: Array<{ functionDeclarations?: Array<Record<string, any>> }>;
};
/* eslint-enable @typescript-eslint/no-explicit-any */

function bodyOf<Body>(request: RecordedRequest | undefined): Body {
  if (!request) throw new Error('no such provider request');
  return request.body as Body;
}

interface ProtocolCases {
  title: string;
  api: 'openai-responses' | 'google-generative-ai';
  model: { vendorModelId: string; apiKey: string };
  /** Path, credentials, where the system prompt and the prompt go, and thinking off without a level. */
  plainReplyWire(request: RecordedRequest): void;
  /** How `reasoningLevel: 'high'` asks for thoughts. */
  highReasoningWire(request: RecordedRequest): void;
  /** How `reasoningLevel: 0` turns thinking off. */
  levelZeroWire(request: RecordedRequest): void;
  /** What the first turn of the weather round trip adds to its reply (a thought signature). */
  toolTurnExtras: Partial<ScriptedTurn>;
  /** The tool declared on the first request, the call and its result replayed on the second. */
  toolRoundTripWire(requests: readonly RecordedRequest[]): void;
  /** A 429 carrying the protocol's retry hint of 150 ms. */
  rateLimitedWithHint: ScriptedReply;
  /** An authentication failure, and the error the run must end with. */
  authFailure: { reply: ScriptedReply; error: Record<string, unknown>; message?: RegExp };
  refusalText: string;
}

const OPENAI_RESPONSES: ProtocolCases = {
  title: 'OpenAI Responses protocol through a run',
  api: 'openai-responses',
  model: { vendorModelId: 'gpt-5-mini', apiKey: 'sk-fake' },
  plainReplyWire(request) {
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/v1/responses');
    assert.equal(request.headers.authorization, 'Bearer sk-fake');
    const body = bodyOf<ResponsesBody>(request);
    assert.equal(body.model, 'gpt-5-mini');
    assert.equal(body.stream, true);
    // Without a level thinking is off: the SDK maps it onto gpt-5-mini's lowest effort.
    assert.deepEqual(body.reasoning, { effort: 'minimal' }, 'thinking off, no summaries');
    // gpt-5-mini is a reasoning model: the system prompt goes as a developer message.
    assert.deepEqual(body.input[0], { role: 'developer', content: 'You are terse.' });
    assert.deepEqual(body.input.at(-1), { role: 'user', content: [{ type: 'input_text', text: 'hi' }] });
  },
  highReasoningWire(request) {
    const body = bodyOf<ResponsesBody>(request);
    assert.equal(body.reasoning?.effort, 'high');
    assert.equal(body.reasoning?.summary, 'auto', 'summaries are asked for, so thoughts can be streamed');
  },
  levelZeroWire(request) {
    const body = bodyOf<ResponsesBody>(request);
    // The SDK maps `reasoning: 'none'` onto gpt-5-mini's efforts (minimal, low, medium, high).
    assert.equal(body.reasoning?.effort, 'minimal');
    assert.equal(body.reasoning?.summary, undefined, 'level 0 asks for no reasoning summaries');
  },
  toolTurnExtras: {},
  toolRoundTripWire(requests) {
    const first = bodyOf<ResponsesBody>(requests[0]);
    const tool = first.tools?.find((entry) => entry.name === 'get_weather');
    assert.equal(tool?.type, 'function');
    assert.deepEqual(tool?.parameters?.required, ['city']);

    const input = bodyOf<ResponsesBody>(requests[1]).input;
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
  },
  rateLimitedWithHint: {
    type: 'http-error',
    status: 429,
    headers: { 'retry-after-ms': '150' },
    message: 'Rate limit reached',
  },
  authFailure: {
    reply: { type: 'http-error', status: 401, message: 'Incorrect API key provided' },
    error: { errorClass: 'auth', retryable: false, apiStatus: 401, apiCode: 'invalid_api_key' },
  },
  refusalText: 'I cannot help with that.',
};

const GEMINI_MODEL = 'gemini-2.5-flash';

const GOOGLE: ProtocolCases = {
  title: 'Google Generative AI protocol through a run',
  api: 'google-generative-ai',
  model: { vendorModelId: GEMINI_MODEL, apiKey: 'g-fake' },
  plainReplyWire(request) {
    // On the wire: promptTokenCount 100 (60 of them cachedContentTokenCount), candidatesTokenCount 15,
    // thoughtsTokenCount 5. The spec's tokens: inputTokens is the whole prompt (cached included),
    // cachedTokens its cached slice, outputTokens candidates + thoughts, reasoningTokens the thoughts.
    assert.equal(request.method, 'POST');
    assert.equal(request.path, `/v1beta/models/${GEMINI_MODEL}:streamGenerateContent?alt=sse`);
    assert.equal(request.headers['x-goog-api-key'], 'g-fake');
    assert.equal(request.headers.authorization, undefined, 'the key goes only in x-goog-api-key');
    const body = bodyOf<GeminiBody>(request);
    assert.deepEqual(body.systemInstruction, { parts: [{ text: 'You are terse.' }] });
    assert.ok(
      !body.contents.some((content) => content.role === 'system'),
      'the system prompt is not a content',
    );
    assert.deepEqual(body.contents.at(-1), { role: 'user', parts: [{ text: 'hi' }] });
    assert.deepEqual(
      body.generationConfig?.thinkingConfig,
      { thinkingBudget: 0, includeThoughts: false },
      'without a level, thinking is off',
    );
  },
  highReasoningWire(request) {
    const thinkingConfig = bodyOf<GeminiBody>(request).generationConfig?.thinkingConfig;
    assert.equal(thinkingConfig?.includeThoughts, true);
    // gemini-2.5-flash takes a budget: the SDK maps the portable `reasoning: 'high'` onto one.
    assert.equal(typeof thinkingConfig?.thinkingBudget, 'number');
    assert.ok(thinkingConfig.thinkingBudget > 0, JSON.stringify(thinkingConfig));
  },
  levelZeroWire(request) {
    // Budget 0 on 2.5 Flash, no includeThoughts.
    const thinkingConfig = bodyOf<GeminiBody>(request).generationConfig?.thinkingConfig;
    assert.deepEqual(thinkingConfig, { thinkingBudget: 0, includeThoughts: false });
  },
  toolTurnExtras: { thinkingSignature: 'c2lnLXdlYXRoZXI=' },
  toolRoundTripWire(requests) {
    const first = bodyOf<GeminiBody>(requests[0]);
    const declaration = first.tools
      ?.flatMap((tool) => tool.functionDeclarations ?? [])
      .find((entry) => entry.name === 'get_weather');
    assert.ok(declaration, `the tool is declared: ${JSON.stringify(first.tools)}`);
    assert.equal(declaration.description, 'Current weather for a city.');
    // The JSON Schema goes as is, in parametersJsonSchema (not the OpenAPI-subset `parameters`).
    assert.deepEqual(declaration.parametersJsonSchema?.required, ['city']);
    assert.equal(declaration.parametersJsonSchema?.properties?.city?.type, 'string');

    const contents = bodyOf<GeminiBody>(requests[1]).contents;
    const modelTurn = contents.findIndex((content) =>
      content.parts.some((part) => part.functionCall !== undefined),
    );
    assert.ok(modelTurn >= 0, `the model's functionCall is replayed: ${JSON.stringify(contents)}`);
    assert.equal(contents[modelTurn]?.role, 'model');
    const callPart = contents[modelTurn]?.parts.find((part) => part.functionCall !== undefined);
    assert.deepEqual(callPart?.functionCall, {
      id: 'call_weather_1',
      name: 'get_weather',
      args: { city: 'Paris' },
    });
    // Gemini rejects a replayed thinking turn's functionCall without its thought signature.
    assert.equal(callPart?.thoughtSignature, 'c2lnLXdlYXRoZXI=');

    const responseTurn = contents[modelTurn + 1];
    assert.equal(responseTurn?.role, 'user', 'the functionResponse follows its call');
    assert.deepEqual(responseTurn?.parts, [
      {
        functionResponse: {
          id: 'call_weather_1',
          name: 'get_weather',
          response: { name: 'get_weather', content: '21C and sunny' },
        },
      },
    ]);
  },
  rateLimitedWithHint: {
    type: 'http-error',
    status: 429,
    body: {
      error: {
        code: 429,
        message: 'You exceeded your current quota.',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.15s' }],
      },
    },
  },
  authFailure: {
    reply: {
      type: 'http-error',
      status: 403,
      message: "Method doesn't allow unregistered callers. Please use an API Key.",
    },
    error: { errorClass: 'auth', retryable: false, apiStatus: 403, apiCode: 'PERMISSION_DENIED' },
    message: /unregistered callers/,
  },
  refusalText: 'I cannot',
};

for (const protocol of [OPENAI_RESPONSES, GOOGLE]) {
  describe(protocol.title, () => {
    let fixture: RunFixture;

    before(async () => {
      fixture = await startRunFixture(protocol.api, {
        model: protocol.model,
        engine: { shutdownGraceMs: 200 },
      });
    });
    after(() => fixture?.close());
    afterEach(() => fixture.cleanUp());

    it('a plain reply streams deltas, one assistant_message (end_turn) and a result with usage in its buckets', async () => {
      fixture.fake.enqueue({
        text: ['Hello', ', world.'],
        usage: { inputTokens: 100, cachedTokens: 60, outputTokens: 20, reasoningTokens: 5 },
      });
      const { frames } = await fixture.runToEnd({ systemPrompt: 'You are terse.', prompt: 'hi' });

      assertPlainHelloWorldRun(frames, protocol.model.vendorModelId);
      assert.equal(fixture.fake.requests.length, 1);
      const [request] = fixture.fake.requests;
      assert.ok(request);
      protocol.plainReplyWire(request);
    });

    it("reasoningLevel 'high' asks for thoughts on the wire and streams them as thinking_delta", async () => {
      fixture.fake.enqueue({
        thinking: ['Weighing ', 'the options.'],
        text: ['Answer.'],
        usage: { inputTokens: 50, outputTokens: 40, reasoningTokens: 30 },
      });
      const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', reasoningLevel: 'high' });

      const request = fixture.fake.requests.at(-1);
      assert.ok(request);
      protocol.highReasoningWire(request);
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
      assert.equal(result?.tokens.outputTokens, 40, 'thoughts count inside outputTokens');
    });

    it('reasoningLevel 0 turns thinking off on the wire and streams no thinking_delta, even if the provider thinks', async () => {
      fixture.fake.enqueue({ thinking: ['hidden thoughts'], text: ['Quick answer.'] });
      const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', reasoningLevel: 0 });

      const request = fixture.fake.requests.at(-1);
      assert.ok(request);
      protocol.levelZeroWire(request);
      assert.deepEqual(types(frames), ['assistant_delta', 'assistant_message', 'result']);
      assert.equal(frames.at(-1)?.data.data.text, 'Quick answer.');
      assert.equal(frames.at(-1)?.data.data.model.reasoningEffort, 'off');
    });

    it('a local tool call round trip: the call → local_tool_call → tool-results → the result replayed with its call', async () => {
      fixture.fake.enqueue(
        {
          thinking: ['I should look it up.'],
          ...protocol.toolTurnExtras,
          toolCalls: [{ id: 'call_weather_1', name: 'get_weather', input: { city: 'Paris' } }],
          usage: { inputTokens: 30, outputTokens: 10 },
        },
        { text: ['Sunny in Paris.'], usage: { inputTokens: 60, cachedTokens: 20, outputTokens: 5 } },
      );
      // weatherRoundTrip checks the unified tool_use finish (Gemini says STOP for a turn with calls).
      const frames = await weatherRoundTrip(fixture);
      assert.deepEqual(
        ofType(frames, 'thinking_delta').map((frame) => frame.data.data.text),
        ['I should look it up.'],
      );
      assert.equal(fixture.fake.requests.length, 2);
      protocol.toolRoundTripWire(fixture.fake.requests);
    });

    it('max tokens ends in a truncation error with partialText, not retried', async () => {
      fixture.fake.enqueue({ text: ['Once upon ', 'a time'], finishReason: 'max_tokens' });
      const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'story' });

      assertTruncatedOnceUponATime(frames);
      assert.equal(fixture.fake.requests.length, 1);
    });

    it("a 429 is retried after the provider's hinted delay and the run succeeds", async () => {
      fixture.fake.enqueue(protocol.rateLimitedWithHint, { text: ['recovered'] });
      const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });

      assert.deepEqual(types(frames), ['assistant_delta', 'assistant_message', 'result']);
      assert.equal(frames.at(-1)?.data.data.text, 'recovered');
      assert.equal(frames.at(-1)?.data.data.turns, 1);
      assert.equal(fixture.fake.requests.length, 2);
      const [first, second] = fixture.fake.requests;
      const gap = (second?.receivedAt ?? 0) - (first?.receivedAt ?? 0);
      assert.ok(gap >= 140, `the retry waited for the hinted delay (${gap} ms)`);
    });

    it("an authentication failure is not retried: errorClass auth with the provider's status and code", async () => {
      fixture.fake.enqueue(protocol.authFailure.reply);
      const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });

      const error = onlyError(frames, protocol.authFailure.error);
      if (protocol.authFailure.message) assert.match(String(error.error), protocol.authFailure.message);
      assert.equal(fixture.fake.requests.length, 1);
    });

    it('a refusal is reported with finishReason refusal', async () => {
      fixture.fake.enqueue({ text: [protocol.refusalText], finishReason: 'refusal' });
      const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });

      const message = ofType(frames, 'assistant_message')[0]?.data.data;
      assert.equal(message?.finishReason, 'refusal');
      assert.equal(message?.text, protocol.refusalText);
      assert.equal(types(frames).at(-1), 'result');
    });
  });
}
