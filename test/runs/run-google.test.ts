import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startFakeGoogle } from '../fakes/fake-google.ts';
import type { FakeProviderServer, RecordedRequest } from '../fakes/scripted-reply.ts';
import { onlyError, startRunFixture, types, type RunFixture } from '../support/run-fixture.ts';
import { WEATHER_TOOL } from '../tools/tool-support.ts';
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

const bodyOf = (request: RecordedRequest | undefined): GeminiBody => {
  if (!request) throw new Error('no such provider request');
  return request.body as GeminiBody;
};

// The cases every hosted protocol shares run for Google in run-protocol-cases.test.ts; these are Gemini's own.
describe('Google Generative AI protocol through a run: what only Gemini does', { timeout: 120_000 }, () => {
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
});
