import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { readToEnd } from '../support/sse-client.ts';
import { startRunFixture, types, type RunFixture } from '../support/run-fixture.ts';

const PNG_1x1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAMAAWgmWQ0AAAAASUVORK5CYII=';

type AnthropicBody = {
  system?: Array<{ type: string; text: string }> | string;
  messages: Array<{ role: string; content: Array<Record<string, any>> | string }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON
  thinking?: { type: string; budget_tokens?: number };
};

describe('Anthropic Messages protocol through a run', () => {
  let fixture: RunFixture;
  before(async () => {
    fixture = await startRunFixture('anthropic-messages');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  const lastBody = () => fixture.fake.requests.at(-1)?.body as AnthropicBody;

  it("system messages are appended after the spec's systemPrompt; both reach the provider", async () => {
    await fixture.runToEnd({
      systemPrompt: 'Base prompt.',
      messages: [
        { role: 'system', content: 'Extra context.' },
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'answer' },
        { role: 'user', content: 'second' },
      ],
    });
    const body = lastBody();
    const system = Array.isArray(body.system) ? body.system.map((part) => part.text).join('\n') : body.system;
    assert.match(system ?? '', /Base prompt\.[\s\S]*Extra context\./);
    assert.deepEqual(
      body.messages.map((message) => message.role),
      ['user', 'assistant', 'user'],
    );
    assert.equal(
      fixture.fake.requests.at(-1)?.headers['x-api-key'],
      'sk-fake-provider-key',
      "the provider row's key is used",
    );
  });

  it('only the last user turn carries its attachments, as native file parts (inline bytes and URLs)', async () => {
    await fixture.runToEnd({
      systemPrompt: 's',
      messages: [
        {
          role: 'user',
          content: 'old',
          attachments: [{ type: 'input_file', mimeType: 'image/png', filename: 'old.png', data: PNG_1x1 }],
        },
        { role: 'assistant', content: 'seen' },
        {
          role: 'user',
          content: 'look',
          attachments: [
            { type: 'input_file', mimeType: 'image/png', filename: 'dot.png', data: PNG_1x1 },
            { type: 'input_file_url', url: 'https://127.0.0.1:9/report.pdf', mimeType: 'application/pdf' },
          ],
        },
      ],
    });
    const [first, , last] = lastBody().messages;
    assert.equal(
      typeof first?.content === 'string'
        ? 'text'
        : first?.content.some((part) => part.type !== 'text')
          ? 'files'
          : 'text',
      'text',
    );
    const parts = last?.content as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON
    const image = parts.find((part) => part.type === 'image');
    assert.equal(image?.source?.type, 'base64');
    assert.equal(image?.source?.data, PNG_1x1);
    const document = parts.find((part) => part.type === 'document');
    assert.deepEqual(
      document?.source,
      { type: 'url', url: 'https://127.0.0.1:9/report.pdf' },
      'the provider fetches the URL itself',
    );
  });

  it('reasoningLevel maps onto the thinking budget; thoughts stream as thinking_delta; the label is reported', async () => {
    fixture.fake.enqueue({ thinking: ['Let me ', 'think.'], text: ['Answer.'] });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', reasoningLevel: 'medium' });
    assert.equal(lastBody().thinking?.type, 'enabled');
    assert.ok((lastBody().thinking?.budget_tokens ?? 0) >= 1024);
    const thinking = frames
      .filter((frame) => frame.data.type === 'thinking_delta')
      .map((frame) => frame.data.data.text);
    assert.equal(thinking.join(''), 'Let me think.');
    assert.equal(frames.at(-1)?.data.data.model.reasoningEffort, 'medium');
  });

  it('a thinking turn that calls a tool is sent back with its thinking block and signature', async () => {
    fixture.fake.reset();
    fixture.fake.enqueue(
      {
        thinking: ['Let me ', 'check.'],
        thinkingSignature: 'sig-xyz',
        toolCalls: [{ id: 'toolu_1', name: 'lookup', input: { q: 'a' } }],
      },
      { text: ['done'] },
    );
    const created = await fixture.createRun({
      systemPrompt: 's',
      prompt: 'p',
      reasoningLevel: 'medium',
      tools: [{ kind: 'local', name: 'lookup' }],
    });
    const runId = created.body.runId as string;
    await readToEnd(await fixture.openStream(runId), fixture.streamUrl(runId), {
      onFrame: async (frame) => {
        if (frame.data.type !== 'local_tool_call') return;
        await fixture.server.request('POST', `${fixture.ws}/agent-runs/${runId}/tool-results`, {
          headers: fixture.headers,
          body: { toolUseId: frame.data.data.toolUseId, result: 'ok' },
        });
      },
    });
    const replayed = (fixture.fake.requests[1]?.body as AnthropicBody).messages[1];
    assert.deepEqual(replayed, {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Let me check.', signature: 'sig-xyz' },
        { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'a' } },
      ],
    });
  });

  it('the label rule: 0 off, 1-35 low, 36-65 medium, 66-100 high', async () => {
    for (const [level, label] of [
      [0, 'off'],
      [35, 'low'],
      [36, 'medium'],
      [65, 'medium'],
      [66, 'high'],
      [100, 'high'],
    ] as const) {
      const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', reasoningLevel: level });
      assert.equal(frames.at(-1)?.data.data.model.reasoningEffort, label, `level ${level}`);
    }
  });

  it('level 0 disables thinking and reports off; an ephemeral spec without a level sends nothing and omits model.reasoningEffort', async () => {
    fixture.fake.enqueue({ thinking: ['hidden'], text: ['x'] }, { thinking: ['hidden'], text: ['x'] });
    const off = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', reasoningLevel: 0 });
    assert.notEqual(lastBody().thinking?.type, 'enabled');
    assert.ok(!types(off.frames).includes('thinking_delta'));
    const omitted = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });
    assert.equal(lastBody().thinking, undefined);
    assert.ok(!types(omitted.frames).includes('thinking_delta'));
    assert.equal(off.frames.at(-1)?.data.data.model.reasoningEffort, 'off');
    assert.equal('reasoningEffort' in (omitted.frames.at(-1)?.data.data.model ?? {}), false);
  });

  it('usage: cached and reasoning tokens are reported in their buckets', async () => {
    fixture.fake.enqueue({
      text: ['x'],
      usage: { inputTokens: 100, cachedTokens: 60, outputTokens: 20, reasoningTokens: 5 },
    });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });
    assert.deepEqual(frames.at(-1)?.data.data.tokens, {
      inputTokens: 100,
      cachedTokens: 60,
      reasoningTokens: 5,
      outputTokens: 20,
    });
  });
});

describe('OpenAI-compatible Chat Completions protocol through a run', () => {
  let fixture: RunFixture;
  before(async () => {
    fixture = await startRunFixture('openai-chat');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  it('reasoningLevel becomes reasoning_effort, and reasoning_content streams as thinking_delta', async () => {
    fixture.fake.enqueue({ thinking: ['pondering'], text: ['done'] });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', reasoningLevel: 90 });
    const body = fixture.fake.requests.at(-1)?.body as {
      reasoning_effort?: string;
      model: string;
      stream: boolean;
    };
    assert.equal(body.reasoning_effort, 'high');
    assert.equal(body.model, 'fake-model');
    assert.equal(body.stream, true);
    assert.equal(fixture.fake.requests.at(-1)?.headers.authorization, 'Bearer sk-fake-provider-key');
    assert.deepEqual(
      frames.filter((frame) => frame.data.type === 'thinking_delta').map((frame) => frame.data.data.text),
      ['pondering'],
    );
  });

  it('without a level no reasoning_effort is sent (servers differ in accepting it) and model.reasoningEffort is omitted', async () => {
    fixture.fake.enqueue({ thinking: ['pondering'], text: ['done'] });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });
    const body = fixture.fake.requests.at(-1)?.body as Record<string, unknown>;
    assert.equal('reasoning_effort' in body, false);
    assert.deepEqual(types(frames), ['assistant_delta', 'assistant_message', 'result']);
    assert.equal('reasoningEffort' in (frames.at(-1)?.data.data.model ?? {}), false);
  });

  it('the system prompt is sent as the first system message', async () => {
    await fixture.runToEnd({ systemPrompt: 'You are terse.', prompt: 'hi' });
    const body = fixture.fake.requests.at(-1)?.body as {
      messages: Array<{ role: string; content: unknown }>;
    };
    assert.deepEqual(body.messages[0], { role: 'system', content: 'You are terse.' });
    assert.deepEqual(body.messages.at(-1), { role: 'user', content: 'hi' });
  });
});

describe('the built-in mock provider', () => {
  it('streams a deterministic reply offline', async () => {
    const { startTestServer, createWorkspaceWithKey, bearer } = await import('../support/test-server.ts');
    const { readAll } = await import('../support/sse-client.ts');
    const server = await startTestServer({ dev: true });
    try {
      const ws = await createWorkspaceWithKey(server, 'dev');
      const created = await server.request('POST', `${ws.ws}/agent-runs`, {
        body: { systemPrompt: 's', prompt: 'hello there' },
        headers: bearer(ws.key),
      });
      const frames = await readAll(
        `${server.baseUrl}${ws.ws}/agent-runs/${created.body.runId}/stream`,
        bearer(ws.key),
      );
      const result = frames.at(-1)?.data.data;
      assert.equal(frames.at(-1)?.data.type, 'result');
      assert.equal(result?.text, 'You said: hello there');
      assert.equal(result?.model.id, 'mock/echo');
      const again = await server.request('POST', `${ws.ws}/agent-runs`, {
        body: { systemPrompt: 's', prompt: 'hello there' },
        headers: bearer(ws.key),
      });
      const second = await readAll(
        `${server.baseUrl}${ws.ws}/agent-runs/${again.body.runId}/stream`,
        bearer(ws.key),
      );
      assert.deepEqual(
        second.map((frame) => frame.data.type),
        frames.map((frame) => frame.data.type),
      );
    } finally {
      await server.close();
    }
  });
});
