import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { RecordedRequest, ScriptedTurn } from '../fakes/scripted-reply.ts';
import { ofType, startRunFixture, types, type RunFixture } from '../support/run-fixture.ts';
import type { SseFrame } from '../support/sse-client.ts';
import { deferred } from '../support/waits.ts';
import { startSessionFixture, type SessionFixture } from '../sessions/session-support.ts';
import { assertHostCallsInternal, listedToolCalls } from './host-call-visibility.ts';

/**
 * `outputSchema` over HTTP: the fake provider records what the service sent (the response format,
 * the synthetic tool and the tool choice) and plays a model that answers in or off the schema. The
 * wiring is checked here (the setting reaches the provider and the terminal events, the snapshot,
 * sessions and agents, host calls stay internal, thinking on the wire); the rules (corrections,
 * strict and best_effort, refused schemas) on the turn loop, in
 * test/engine/control-rules/structured-output.test.ts.
 */

const SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string' } },
  required: ['answer'],
  additionalProperties: false,
};
const OUTPUT_SCHEMA = { name: 'answer', schema: SCHEMA };
const STRICT = { ...OUTPUT_SCHEMA, enforcement: 'strict' };

/** The `current_time` plugin: a server tool that runs on the service, needs no network. */
const CLOCK = { kind: 'svc_plugin', name: 'current_time' };
const LOOKUP = {
  kind: 'local',
  name: 'lookup',
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
};

const clockCall = (id: string): ScriptedTurn => ({
  toolCalls: [{ id, name: 'current_time', input: { timeZone: 'UTC' } }],
});
const reply = (text: string): ScriptedTurn => ({ text: [text] });
const finalReport = (id: string, input: Record<string, unknown>): ScriptedTurn => ({
  toolCalls: [{ id, name: 'final_report', input }],
});

const ENFORCED_NATIVE = {
  schemaRequested: true,
  schemaEnforced: true,
  enforcementMechanism: 'native_schema',
  unconstrainedFallbackOccurred: false,
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider wire JSON
type Wire = Record<string, any>;

function bodyOf(request: RecordedRequest | undefined): Wire {
  if (!request) throw new Error('no such provider request');
  return request.body as Wire;
}

/** The text of every user message of a request (tool results left out), in order. */
function userTexts(request: RecordedRequest | undefined): string[] {
  return (bodyOf(request).messages as Wire[])
    .filter((message) => message.role === 'user')
    .map((message) =>
      typeof message.content === 'string'
        ? message.content
        : (message.content as Wire[])
            .filter((part) => part.type === 'text')
            .map((part) => String(part.text))
            .join(''),
    )
    .filter((text) => text !== '');
}

const terminalOf = (frames: readonly SseFrame[]) => frames.at(-1)?.data.data ?? {};

/** The ids of the blocks of one type (`tool_use`, `tool_result`) across an Anthropic request's messages. */
function anthropicBlockIds(request: RecordedRequest | undefined, type: 'tool_use' | 'tool_result'): string[] {
  return (bodyOf(request).messages as Wire[])
    .flatMap((message) => (Array.isArray(message.content) ? (message.content as Wire[]) : []))
    .filter((block) => block.type === type)
    .map((block) => String(type === 'tool_use' ? block.id : block.tool_use_id));
}

describe('outputSchema on a native JSON-schema provider (openai-chat)', { timeout: 90_000 }, () => {
  let fixture: SessionFixture;
  before(async () => {
    fixture = await startSessionFixture('openai-chat');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  it('native_schema: every provider request carries response_format json_schema, tool turns included; result.text is the JSON reply', async () => {
    fixture.fake.enqueue(clockCall('c1'), reply('{"answer":"noon"}'));
    const { runId, frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'time?',
      tools: [CLOCK],
      outputSchema: OUTPUT_SCHEMA,
    });

    assert.equal(types(frames).at(-1), 'result');
    const result = terminalOf(frames);
    assert.equal(result.text, '{"answer":"noon"}');
    assert.deepEqual(result.structuredOutput, ENFORCED_NATIVE);
    assert.equal(ofType(frames, 'tool_result').length, 1, 'the tool turn ran');

    const requests = fixture.fake.requests;
    assert.equal(requests.length, 2);
    for (const request of requests) {
      const format = bodyOf(request).response_format;
      assert.equal(format?.type, 'json_schema');
      assert.equal(format?.json_schema?.name, 'answer');
      assert.deepEqual(format?.json_schema?.schema, SCHEMA);
    }
    assert.ok(bodyOf(requests[0]).tools?.length === 1, 'the first request was a tool turn');

    const snapshot = await fixture.runSnapshot(runId);
    assert.equal(snapshot.body.status, 'succeeded');
    assert.equal(snapshot.body.finalText, '{"answer":"noon"}');
  });

  it('the run snapshot carries structuredOutput once the run has ended: the terminal event’s block, with the validated reply as value', async () => {
    const released = deferred();
    fixture.fake.enqueue({ text: ['{"answer":"noon"}'], holdUntil: released.promise });
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'p', outputSchema: OUTPUT_SCHEMA });
    await fixture.fake.waitForRequests(1);
    const during = await fixture.runSnapshot(run.runId);
    assert.equal(during.status, 200);
    assert.equal('structuredOutput' in during.body, false, 'not known while the run goes on');
    released.resolve();
    const frames = await run.ended;
    assert.deepEqual(terminalOf(frames).structuredOutput, ENFORCED_NATIVE);
    const ended = await fixture.runSnapshot(run.runId);
    assert.deepEqual(ended.body.structuredOutput, { ...ENFORCED_NATIVE, value: { answer: 'noon' } });

    fixture.fake.enqueue(reply('noon'), reply('still noon'));
    const loose = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', outputSchema: OUTPUT_SCHEMA });
    assert.deepEqual(
      (await fixture.runSnapshot(loose.runId)).body.structuredOutput,
      { ...ENFORCED_NATIVE, schemaEnforced: false },
      'a reply the schema was not enforced on has no value',
    );

    fixture.fake.enqueue(reply('plain'));
    const plain = await fixture.runToEnd({ systemPrompt: 's', prompt: 'hi' });
    assert.deepEqual((await fixture.runSnapshot(plain.runId)).body.structuredOutput, {
      schemaRequested: false,
      schemaEnforced: false,
      enforcementMechanism: 'none',
      unconstrainedFallbackOccurred: false,
    });
  });

  it('without outputSchema: no response_format, and the default structuredOutput block', async () => {
    fixture.fake.enqueue(reply('plain'));
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'hi' });
    assert.deepEqual(terminalOf(frames).structuredOutput, {
      schemaRequested: false,
      schemaEnforced: false,
      enforcementMechanism: 'none',
      unconstrainedFallbackOccurred: false,
    });
    assert.equal(bodyOf(fixture.fake.requests[0]).response_format, undefined);
  });

  it("session inheritance: the session's outputSchema applies to its message runs; a message's override holds for that run only", async () => {
    const sessionId = await fixture.newSession({ systemPrompt: 's', outputSchema: OUTPUT_SCHEMA });
    const override = { name: 'verdict', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } };
    fixture.fake.enqueue(reply('{"answer":"one"}'), reply('{"ok":true}'), reply('{"answer":"three"}'));

    const first = await fixture.sendMessage(sessionId, { prompt: 'one' });
    const second = await fixture.sendMessage(sessionId, { prompt: 'two', outputSchema: override });
    const third = await fixture.sendMessage(sessionId, { prompt: 'three' });

    const names = fixture.fake.requests.map((request) => bodyOf(request).response_format?.json_schema?.name);
    assert.deepEqual(names, ['answer', 'verdict', 'answer']);
    for (const { frames } of [first, second, third]) {
      assert.deepEqual(terminalOf(frames).structuredOutput, ENFORCED_NATIVE);
    }
    assert.equal(terminalOf(second.frames).text, '{"ok":true}');
  });

  it('an agentId run enforces the outputSchema of its request, as an ephemeral run does', async () => {
    const agent = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/agents`, {
      name: 'Reporter',
      systemPrompt: 'You are the stored agent.',
    });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    fixture.fake.enqueue(reply('{"answer":"stored"}'));
    const { frames } = await fixture.runToEnd({
      agentId: agent.body.id,
      prompt: 'p',
      outputSchema: OUTPUT_SCHEMA,
    });
    assert.equal(terminalOf(frames).text, '{"answer":"stored"}');
    assert.deepEqual(terminalOf(frames).structuredOutput, ENFORCED_NATIVE);
    assert.equal(bodyOf(fixture.fake.requests[0]).response_format?.json_schema?.name, 'answer');
  });

  it("operator contract (agents' outputSchema): the agent's outputSchema is the default of its runs and session message runs; a run's own wins", async () => {
    const agent = await fixture.server.admin('POST', `/workspaces/${fixture.slug}/agents`, {
      name: 'Schema Keeper',
      systemPrompt: 'You answer in JSON.',
      outputSchema: OUTPUT_SCHEMA,
    });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    const override = { name: 'verdict', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } };
    fixture.fake.enqueue(reply('{"answer":"default"}'), reply('{"ok":true}'), reply('{"answer":"session"}'));

    const byDefault = await fixture.runToEnd({ agentId: agent.body.id, prompt: 'p' });
    const overridden = await fixture.runToEnd({
      agentId: agent.body.id,
      prompt: 'p',
      outputSchema: override,
    });
    const sessionId = await fixture.newSession({ agentId: agent.body.id });
    const inSession = await fixture.sendMessage(sessionId, { prompt: 'p' });

    const names = fixture.fake.requests.map((request) => bodyOf(request).response_format?.json_schema?.name);
    assert.deepEqual(names, ['answer', 'verdict', 'answer']);
    for (const { frames } of [byDefault, overridden, inSession]) {
      assert.deepEqual(terminalOf(frames).structuredOutput, ENFORCED_NATIVE);
    }
    const snapshot = await fixture.runSnapshot(byDefault.runId);
    assert.equal(snapshot.body.structuredOutput?.value?.answer, 'default');
  });
});

describe('outputSchema on a tool-call family (anthropic-messages): final_report', { timeout: 90_000 }, () => {
  let fixture: SessionFixture;
  before(async () => {
    fixture = await startSessionFixture('anthropic-messages');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  const ENFORCED_SYNTHETIC = {
    schemaRequested: true,
    schemaEnforced: true,
    enforcementMechanism: 'synthetic_tool',
    unconstrainedFallbackOccurred: false,
  };
  const toolNames = (request: RecordedRequest | undefined) =>
    (bodyOf(request).tools as Wire[] | undefined)?.map((tool) => tool.name);

  it('final_report is offered beside the declared tools, forced on the tools-disabled finishing turn after a text answer, and its input becomes result.text; the client never sees it', async () => {
    fixture.fake.enqueue(reply('It is noon.'), finalReport('fr1', { answer: 'noon' }));
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'time?',
      tools: [LOOKUP],
      outputSchema: OUTPUT_SCHEMA,
    });

    assert.equal(types(frames).at(-1), 'result');
    const result = terminalOf(frames);
    assert.equal(result.text, '{"answer":"noon"}');
    assert.deepEqual(result.structuredOutput, ENFORCED_SYNTHETIC);
    assert.equal(result.turns, 2);
    assert.deepEqual(ofType(frames, 'local_tool_call'), [], 'final_report is never a client call');
    assert.deepEqual(ofType(frames, 'tool_call'), [], 'nor a published server call');

    const [first, second] = fixture.fake.requests;
    assert.equal(fixture.fake.requests.length, 2);
    assert.deepEqual(toolNames(first), ['lookup', 'final_report']);
    assert.deepEqual(bodyOf(first).tools[1].input_schema, SCHEMA);
    assert.equal(bodyOf(first).tool_choice?.type, 'auto');
    assert.deepEqual(bodyOf(second).tool_choice, { type: 'tool', name: 'final_report' });
    assert.match(userTexts(second).at(-1) ?? '', /calling the final_report tool/);
  });

  it('host tool calls are internal: a final_report call is never listed in assistant_message.toolCalls', async () => {
    fixture.fake.enqueue(finalReport('fr1', { answer: 'noon' }));
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', outputSchema: STRICT });
    assert.equal(terminalOf(frames).text, '{"answer":"noon"}');
    assert.deepEqual(listedToolCalls(frames), [[]], 'the turn lists no tool call');
    assertHostCallsInternal(frames, ['fr1']);
  });

  it('host tool calls are internal: final_report beside a client call: only the client call is listed, published and pending, and the model still gets both results', async () => {
    fixture.fake.enqueue(
      {
        toolCalls: [
          { id: 'l1', name: 'lookup', input: { q: 'a' } },
          { id: 'fr1', name: 'final_report', input: { answer: 'early' } },
        ],
      },
      finalReport('fr2', { answer: 'noon' }),
    );
    const run = await fixture.startRun({
      systemPrompt: 's',
      prompt: 'p',
      tools: [LOOKUP],
      outputSchema: OUTPUT_SCHEMA,
    });
    const call = await run.waitForType('local_tool_call');
    assert.equal(call.data.data.toolUseId, 'l1');
    const waiting = await fixture.runSnapshot(run.runId);
    assert.deepEqual(waiting.body.pendingToolCalls, [{ toolUseId: 'l1', name: 'lookup', kind: 'local' }]);
    const posted = await fixture.postToolResult(run.runId, { toolUseId: 'l1', result: 'a letter' });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    const frames = await run.ended;

    assert.equal(terminalOf(frames).text, '{"answer":"noon"}');
    const [first] = ofType(frames, 'assistant_message');
    assert.deepEqual(first?.data.data.toolCalls, [{ id: 'l1', name: 'lookup', input: { q: 'a' } }]);
    assert.deepEqual(listedToolCalls(frames), [['lookup'], []]);
    assertHostCallsInternal(frames, ['fr1', 'fr2']);
    const next = fixture.fake.requests[1];
    assert.deepEqual(anthropicBlockIds(next, 'tool_use'), ['l1', 'fr1'], 'the model sees its own calls');
    assert.deepEqual(anthropicBlockIds(next, 'tool_result'), ['l1', 'fr1'], 'and every result');
  });

  it('with thinking on, the forced choice becomes auto (final_report alone is sent); a compliant model still answers through it', async () => {
    fixture.fake.enqueue({ thinking: ['Reporting.'], ...finalReport('fr1', { answer: 'noon' }) });
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'p',
      reasoningLevel: 'high',
      outputSchema: STRICT,
    });
    assert.equal(terminalOf(frames).text, '{"answer":"noon"}');
    assert.deepEqual(terminalOf(frames).structuredOutput, ENFORCED_SYNTHETIC);
    const [request] = fixture.fake.requests;
    assert.equal(bodyOf(request).thinking?.type, 'enabled');
    assert.deepEqual(toolNames(request), ['final_report']);
    assert.equal(bodyOf(request).tool_choice?.type, 'auto');
  });

  it('with thinking on, a text answer on the finishing turn (auto, not forced) gets one insisting turn; then best_effort takes the text, not enforced', async () => {
    fixture.fake.enqueue(
      { thinking: ['Hmm.'], text: ['It is noon.'] },
      { thinking: ['Hmm.'], text: ['Noon, as I said.'] },
    );
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'p',
      reasoningLevel: 'high',
      outputSchema: OUTPUT_SCHEMA,
    });
    assert.equal(types(frames).at(-1), 'result');
    assert.equal(terminalOf(frames).text, 'Noon, as I said.');
    assert.deepEqual(terminalOf(frames).structuredOutput, { ...ENFORCED_SYNTHETIC, schemaEnforced: false });
    const requests = fixture.fake.requests;
    assert.equal(requests.length, 2);
    for (const request of requests) {
      assert.deepEqual(toolNames(request), ['final_report']);
      assert.equal(bodyOf(request).tool_choice?.type, 'auto', 'thinking turns the forced choice into auto');
    }
    assert.match(userTexts(requests[1]).at(-1) ?? '', /only accepted through the final_report tool/);
  });

  it('with thinking on, strict fails structured_output_not_enforced when the model keeps answering in text', async () => {
    fixture.fake.enqueue({ thinking: ['Hmm.'], text: ['It is noon.'] });
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'p',
      reasoningLevel: 'high',
      outputSchema: STRICT,
    });
    const error = terminalOf(frames);
    assert.equal(error.errorClass, 'structured_output_not_enforced');
    assert.equal(error.partialText, 'It is noon.');
    assert.deepEqual(error.structuredOutput, { ...ENFORCED_SYNTHETIC, schemaEnforced: false });
    assert.equal(fixture.fake.requests.length, 2);
  });
});

describe(
  'outputSchema on Gemini before 3 (google-generative-ai): set_model_response with tools',
  { timeout: 90_000 },
  () => {
    let fixture: RunFixture;
    before(async () => {
      fixture = await startRunFixture('google-generative-ai', {
        model: { vendorModelId: 'gemini-2.5-flash' },
      });
    });
    after(() => fixture.close());
    afterEach(() => fixture.cleanUp());

    const declarations = (request: RecordedRequest | undefined) =>
      ((bodyOf(request).tools as Wire[] | undefined) ?? []).flatMap(
        (tool) => (tool.functionDeclarations as Wire[] | undefined) ?? [],
      );

    it('a run with tools gets set_model_response (its parameters the schema, no response schema beside the tools), and its arguments become result.text', async () => {
      fixture.fake.enqueue(clockCall('c1'), {
        toolCalls: [{ id: 's1', name: 'set_model_response', input: { answer: 'noon' } }],
      });
      const { frames } = await fixture.runToEnd({
        systemPrompt: 's',
        prompt: 'time?',
        tools: [CLOCK],
        outputSchema: STRICT,
      });
      assert.equal(types(frames).at(-1), 'result');
      assert.equal(terminalOf(frames).text, '{"answer":"noon"}');
      assert.deepEqual(terminalOf(frames).structuredOutput, {
        schemaRequested: true,
        schemaEnforced: true,
        enforcementMechanism: 'synthetic_tool',
        unconstrainedFallbackOccurred: false,
      });
      assert.deepEqual(ofType(frames, 'local_tool_call'), []);
      for (const request of fixture.fake.requests) {
        assert.deepEqual(
          declarations(request).map((declaration) => declaration.name),
          ['current_time', 'set_model_response'],
        );
        assert.equal(bodyOf(request).generationConfig?.responseMimeType, undefined);
      }
    });

    it('host tool calls are internal: set_model_response beside a client call: only the client call is listed, published and pending, and the model still gets both results', async () => {
      fixture.fake.enqueue(
        {
          toolCalls: [
            { id: 'l1', name: 'lookup', input: { q: 'a' } },
            { id: 's1', name: 'set_model_response', input: { answer: 'early' } },
          ],
        },
        { toolCalls: [{ id: 's2', name: 'set_model_response', input: { answer: 'noon' } }] },
      );
      const run = await fixture.startRun({
        systemPrompt: 's',
        prompt: 'p',
        tools: [LOOKUP],
        outputSchema: STRICT,
      });
      const call = await run.waitForType('local_tool_call');
      const toolUseId = String(call.data.data.toolUseId);
      assert.equal(call.data.data.name, 'lookup');
      const path = `${fixture.ws}/agent-runs/${run.runId}`;
      const waiting = await fixture.server.request('GET', path, { headers: fixture.headers });
      assert.deepEqual(waiting.body.pendingToolCalls, [{ toolUseId, name: 'lookup', kind: 'local' }]);
      const posted = await fixture.server.request('POST', `${path}/tool-results`, {
        headers: fixture.headers,
        body: { toolUseId, result: 'a letter' },
      });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      const frames = await run.ended;

      assert.equal(terminalOf(frames).text, '{"answer":"noon"}');
      assert.deepEqual(listedToolCalls(frames), [['lookup'], []]);
      assertHostCallsInternal(frames);
      const responses = ((bodyOf(fixture.fake.requests[1]).contents as Wire[]) ?? [])
        .flatMap((content) => (content.parts as Wire[] | undefined) ?? [])
        .flatMap((part) => (part.functionResponse ? [String(part.functionResponse.name)] : []));
      assert.deepEqual(responses, ['lookup', 'set_model_response'], 'the model gets every result');
    });

    it('a run without tools keeps the native response schema', async () => {
      fixture.fake.enqueue(reply('{"answer":"noon"}'));
      const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', outputSchema: STRICT });
      assert.equal(terminalOf(frames).text, '{"answer":"noon"}');
      assert.equal(terminalOf(frames).structuredOutput.enforcementMechanism, 'native_schema');
      const config = bodyOf(fixture.fake.requests[0]).generationConfig;
      assert.equal(config?.responseMimeType, 'application/json');
      assert.equal(declarations(fixture.fake.requests[0]).length, 0);
    });
  },
);
