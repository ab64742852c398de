import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startFakeGoogle } from '../fakes/fake-google.ts';
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
import { WEATHER_TOOL, weatherRoundTrip } from '../tools/tool-support.ts';
import { endRun } from '../support/run-cleanup.ts';
import { watchStream } from '../support/stream-watch.ts';
import { bearer, createWorkspaceWithKey, type TestServer } from '../support/test-server.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- wire JSON */
/** A Gemini `generateContent` request body as the fake recorded it. */
type GeminiBody = {
  contents: Array<{ role: string; parts: Array<Record<string, any>> }>;
  systemInstruction?: { parts: Array<{ text: string }> };
  generationConfig?: { thinkingConfig?: Record<string, any>; maxOutputTokens?: number };
  tools?: Array<{ functionDeclarations?: Array<Record<string, any>> }>;
};
/* eslint-enable @typescript-eslint/no-explicit-any */

const MODEL = 'gemini-2.5-flash';
const STREAM_PATH = `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`;

const bodyOf = (request: RecordedRequest | undefined): GeminiBody => {
  if (!request) throw new Error('no such provider request');
  return request.body as GeminiBody;
};

describe('Google Generative AI protocol through a run', { timeout: 120_000 }, () => {
  let server: TestServer;
  let fake: FakeProviderServer;
  let fixture: RunFixture;

  before(async () => {
    fixture = await startRunFixture('google-generative-ai', {
      model: { vendorModelId: MODEL, apiKey: 'g-fake' },
      engine: { shutdownGraceMs: 200 },
    });
    ({ server, fake } = fixture);
  });
  after(() => fixture?.close());
  afterEach(() => fixture.cleanUp());

  it('a plain reply streams deltas, one assistant_message (end_turn) and a result with usage in its buckets', async () => {
    // On the wire: promptTokenCount 100 (60 of them cachedContentTokenCount), candidatesTokenCount 15,
    // thoughtsTokenCount 5. The spec's tokens: inputTokens is the whole prompt (cached included),
    // cachedTokens its cached slice, outputTokens candidates + thoughts, reasoningTokens the thoughts.
    fake.enqueue({
      text: ['Hello', ', world.'],
      usage: { inputTokens: 100, cachedTokens: 60, outputTokens: 20, reasoningTokens: 5 },
    });
    const { frames } = await fixture.runToEnd({ systemPrompt: 'You are terse.', prompt: 'hi' });

    assertPlainHelloWorldRun(frames, MODEL);

    assert.equal(fake.requests.length, 1);
    const request = fake.requests[0];
    assert.equal(request?.method, 'POST');
    assert.equal(request?.path, STREAM_PATH);
    assert.equal(request?.headers['x-goog-api-key'], 'g-fake');
    assert.equal(request?.headers.authorization, undefined, 'the key goes only in x-goog-api-key');
    const body = bodyOf(request);
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
  });

  it("reasoningLevel 'high' asks for thoughts (includeThoughts) and streams thought parts as thinking_delta", async () => {
    fake.enqueue({
      thinking: ['Weighing ', 'the options.'],
      text: ['Answer.'],
      usage: { inputTokens: 50, outputTokens: 40, reasoningTokens: 30 },
    });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', reasoningLevel: 'high' });

    const thinkingConfig = bodyOf(fake.requests.at(-1)).generationConfig?.thinkingConfig;
    assert.equal(thinkingConfig?.includeThoughts, true);
    // gemini-2.5-flash takes a budget: the SDK maps the portable `reasoning: 'high'` onto one.
    assert.equal(typeof thinkingConfig?.thinkingBudget, 'number');
    assert.ok(thinkingConfig.thinkingBudget > 0, JSON.stringify(thinkingConfig));
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

  it('without a level Gemini 2.5 gets thinking off (it thinks by default), and thoughts it sends anyway are not streamed', async () => {
    fake.enqueue({ thinking: ['hidden thoughts'], text: ['Quick answer.'] });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });

    const body = bodyOf(fake.requests.at(-1));
    assert.deepEqual(body.generationConfig?.thinkingConfig, { thinkingBudget: 0, includeThoughts: false });
    assert.deepEqual(types(frames), ['assistant_delta', 'assistant_message', 'result']);
    assert.equal(frames.at(-1)?.data.data.text, 'Quick answer.');
    assert.equal(
      'reasoningEffort' in (frames.at(-1)?.data.data.model ?? {}),
      false,
      'no level asked for: omitted',
    );
  });

  it('a Gemini model without a thinking control (2.0) gets no thinking config, with or without a level, and model.reasoningEffort is omitted (no such knob)', async () => {
    const listed = await server.admin('GET', `/workspaces/${fixture.slug}/providers`);
    const providerId = (listed.body.providers as { id: string }[])[0]?.id;
    const modelId = `provider:${providerId}:gemini-2.0-flash`;
    for (const reasoningLevel of [undefined, 0, 80]) {
      fake.enqueue({ text: ['Plain.'] });
      const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', modelId, reasoningLevel });
      const request = fake.requests.at(-1);
      assert.equal(request?.path, '/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
      assert.equal(bodyOf(request).generationConfig?.thinkingConfig, undefined, `level ${reasoningLevel}`);
      assert.equal(types(frames).at(-1), 'result');
      assert.equal(
        'reasoningEffort' in (frames.at(-1)?.data.data.model ?? {}),
        false,
        `level ${reasoningLevel}`,
      );
    }
  });

  it('a local tool call round trip: functionCall → local_tool_call → tool-results → functionResponse', async () => {
    fake.enqueue(
      {
        thinking: ['I should look it up.'],
        thinkingSignature: 'c2lnLXdlYXRoZXI=',
        toolCalls: [{ id: 'call_weather_1', name: 'get_weather', input: { city: 'Paris' } }],
        usage: { inputTokens: 30, outputTokens: 10 },
      },
      { text: ['Sunny in Paris.'], usage: { inputTokens: 60, cachedTokens: 20, outputTokens: 5 } },
    );
    const frames = await weatherRoundTrip(fixture);
    // Gemini says STOP for a turn with function calls; weatherRoundTrip checks the unified tool_use wins.
    assert.deepEqual(
      ofType(frames, 'thinking_delta').map((frame) => frame.data.data.text),
      ['I should look it up.'],
    );

    assert.equal(fake.requests.length, 2);
    const first = bodyOf(fake.requests[0]);
    const declaration = first.tools
      ?.flatMap((tool) => tool.functionDeclarations ?? [])
      .find((entry) => entry.name === 'get_weather');
    assert.ok(declaration, `the tool is declared: ${JSON.stringify(first.tools)}`);
    assert.equal(declaration.description, 'Current weather for a city.');
    // The JSON Schema goes as is, in parametersJsonSchema (not the OpenAPI-subset `parameters`).
    assert.deepEqual(declaration.parametersJsonSchema?.required, ['city']);
    assert.equal(declaration.parametersJsonSchema?.properties?.city?.type, 'string');

    const contents = bodyOf(fake.requests[1]).contents;
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
  });

  it('reasoningLevel 0 turns thinking off (budget 0 on 2.5 Flash, no includeThoughts) and streams no thinking_delta', async () => {
    fake.enqueue({ thinking: ['hidden thoughts'], text: ['Quick answer.'] });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', reasoningLevel: 0 });

    const thinkingConfig = bodyOf(fake.requests.at(-1)).generationConfig?.thinkingConfig;
    assert.deepEqual(thinkingConfig, { thinkingBudget: 0, includeThoughts: false });
    assert.deepEqual(types(frames), ['assistant_delta', 'assistant_message', 'result']);
    assert.equal(frames.at(-1)?.data.data.model.reasoningEffort, 'off');
  });

  it('a functionCall without an id (Gemini 2.5) gets one from the SDK that round-trips to the functionResponse', async () => {
    const idless = await startFakeGoogle(
      [
        { toolCalls: [{ id: 'unused', name: 'get_weather', input: { city: 'Oslo' } }] },
        { text: ['Cold in Oslo.'] },
      ],
      { functionCallIds: false },
    );
    try {
      const other = await createWorkspaceWithKey(server, 'idless', {
        rateLimits: { runStart: 100_000, lifecycle: 100_000, otherMutations: 100_000 },
      });
      const otherHeaders = bearer(other.key);
      const provider = await server.admin('POST', `/workspaces/${other.slug}/providers`, {
        provider: 'google',
        api: 'google-generative-ai',
        baseUrl: idless.url,
        apiKey: 'g-fake-2',
        models: [{ vendorModelId: MODEL }],
        isDefault: true,
      });
      assert.equal(provider.status, 201, JSON.stringify(provider.body));
      const created = await server.request('POST', `${other.ws}/agent-runs`, {
        body: { systemPrompt: 's', prompt: 'weather in Oslo?', tools: [WEATHER_TOOL] },
        headers: otherHeaders,
      });
      assert.equal(created.status, 202, JSON.stringify(created.body));
      const runId = created.body.runId as string;
      const run = await watchStream(
        `${server.baseUrl}${other.ws}/agent-runs/${runId}/stream`,
        otherHeaders,
        runId,
      );
      try {
        const call = await run.waitForType('local_tool_call');
        const toolUseId = call.data.data.toolUseId as string;
        assert.ok(typeof toolUseId === 'string' && toolUseId !== '', 'the SDK made up an id');
        assert.deepEqual(call.data.data.args, { city: 'Oslo' });
        const posted = await server.request('POST', `${other.ws}/agent-runs/${runId}/tool-results`, {
          body: { toolUseId, result: '-3C' },
          headers: otherHeaders,
        });
        assert.equal(posted.status, 200, JSON.stringify(posted.body));
        const frames = await run.ended;
        assert.equal(types(frames).at(-1), 'result');
        assert.equal(frames.at(-1)?.data.data.text, 'Cold in Oslo.');

        assert.equal(idless.requests.length, 2);
        assert.equal(idless.requests[1]?.headers['x-goog-api-key'], 'g-fake-2');
        const parts = bodyOf(idless.requests[1]).contents.flatMap((content) => content.parts);
        const functionCall = parts.find((part) => part.functionCall !== undefined)?.functionCall;
        const functionResponse = parts.find((part) => part.functionResponse !== undefined)?.functionResponse;
        assert.equal(functionCall?.name, 'get_weather');
        assert.equal(functionResponse?.name, 'get_weather');
        assert.equal(functionResponse?.response?.content, '-3C');
        assert.equal(functionResponse?.id, functionCall?.id, 'the response answers the replayed call');
      } finally {
        run.close();
        await endRun({ server, ws: other.ws, runId, headers: otherHeaders });
      }
    } finally {
      await idless.close();
    }
  });

  it('MAX_TOKENS ends in a truncation error with partialText', async () => {
    fake.enqueue({ text: ['Once upon ', 'a time'], finishReason: 'max_tokens' });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'story' });

    assertTruncatedOnceUponATime(frames);
    assert.equal(fake.requests.length, 1);
  });

  it('a 429 RESOURCE_EXHAUSTED is retried after its RetryInfo delay and the run succeeds', async () => {
    fake.enqueue(
      {
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
      { text: ['recovered'] },
    );
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });

    assert.deepEqual(types(frames), ['assistant_delta', 'assistant_message', 'result']);
    assert.equal(frames.at(-1)?.data.data.text, 'recovered');
    assert.equal(frames.at(-1)?.data.data.turns, 1);
    assert.equal(fake.requests.length, 2);
    const gap = (fake.requests[1]?.receivedAt ?? 0) - (fake.requests[0]?.receivedAt ?? 0);
    assert.ok(gap >= 140, `the retry waited for the RetryInfo delay (${gap} ms)`);
  });

  it('a 503 UNAVAILABLE is retried and the run succeeds', async () => {
    fake.enqueue(
      { type: 'http-error', status: 503, message: 'The model is overloaded. Please try again later.' },
      { text: ['back'] },
    );
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });

    assert.deepEqual(types(frames), ['assistant_delta', 'assistant_message', 'result']);
    assert.equal(frames.at(-1)?.data.data.text, 'back');
    assert.equal(fake.requests.length, 2);
  });

  it('a 403 PERMISSION_DENIED is not retried: errorClass auth with the Google status', async () => {
    fake.enqueue({
      type: 'http-error',
      status: 403,
      message: "Method doesn't allow unregistered callers. Please use an API Key.",
    });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });

    const error = onlyError(frames, {
      errorClass: 'auth',
      retryable: false,
      apiStatus: 403,
      apiCode: 'PERMISSION_DENIED',
    });
    assert.match(String(error.error), /unregistered callers/);
    assert.equal(fake.requests.length, 1);
  });

  it('a 400 INVALID_ARGUMENT is not retried: errorClass invalid_request', async () => {
    fake.enqueue({ type: 'http-error', status: 400, message: 'Invalid JSON payload received.' });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });

    onlyError(frames, {
      errorClass: 'invalid_request',
      retryable: false,
      apiStatus: 400,
      apiCode: 'INVALID_ARGUMENT',
    });
    assert.equal(fake.requests.length, 1);
  });

  it('a SAFETY finish is reported with finishReason refusal', async () => {
    fake.enqueue({ text: ['I cannot'], finishReason: 'refusal' });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });

    const message = ofType(frames, 'assistant_message')[0]?.data.data;
    assert.equal(message?.finishReason, 'refusal');
    assert.equal(message?.text, 'I cannot');
    assert.equal(types(frames).at(-1), 'result');
  });
});
