import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { ModelMessage } from 'ai';
import { zeroUsage } from '../../src/domain/usage.ts';
import type { CompletedTurn } from '../../src/engine/ports.ts';
import { withUniqueToolCallIds } from '../../src/engine/loop/tool-call-ids.ts';
import { startRunFixture, types, type RunFixture } from '../support/run-fixture.ts';
import { postToolResult, WEATHER_TOOL } from './tool-support.ts';

describe(
  'a provider that reuses tool-call ids across turns (call_0 every reply)',
  { timeout: 120_000 },
  () => {
    let fixture: RunFixture;
    before(async () => {
      fixture = await startRunFixture('openai-chat');
    });
    after(() => fixture.close());
    afterEach(() => fixture.cleanUp());

    type ChatMessage = { role: string; tool_call_id?: string; tool_calls?: { id: string }[] };

    it('each call still gets its own toolUseId, and the results pair with the right calls on the wire', async () => {
      fixture.fake.reset();
      fixture.fake.enqueue(
        { toolCalls: [{ id: 'call_0', name: 'get_weather', input: { city: 'Rome' } }] },
        { toolCalls: [{ id: 'call_0', name: 'get_weather', input: { city: 'Oslo' } }] },
        { text: ['Warm in Rome, cold in Oslo.'] },
      );
      const run = await fixture.startRun({ systemPrompt: 's', prompt: 'weather?', tools: [WEATHER_TOOL] });
      const first = await run.waitForType('local_tool_call');
      assert.equal(first.data.data.toolUseId, 'call_0');
      assert.equal(
        (await postToolResult(fixture, run.runId, { toolUseId: 'call_0', result: '25C' })).status,
        200,
      );
      await fixture.fake.waitForRequests(2);
      const secondCall = () => run.frames.filter((frame) => frame.data.type === 'local_tool_call')[1];
      await run.waitFor(
        (frame) => frame.data.type === 'error' || secondCall() !== undefined,
        'a second local_tool_call (or an error)',
      );
      const second = secondCall();
      assert.equal(second?.data.data.toolUseId, 'call_0_2');
      assert.deepEqual(second?.data.data.args, { city: 'Oslo' });
      assert.equal(
        (await postToolResult(fixture, run.runId, { toolUseId: 'call_0_2', result: '-3C' })).status,
        200,
      );
      const ended = await run.ended;
      assert.equal(types(ended).at(-1), 'result');
      const messages = ended.filter((frame) => frame.data.type === 'assistant_message');
      assert.deepEqual(
        messages.map((message) => message.data.data.toolCalls?.[0]?.id),
        ['call_0', 'call_0_2', undefined],
      );

      const wire = (fixture.fake.requests[2]?.body as { messages: ChatMessage[] }).messages;
      const pairs = wire.flatMap((message) =>
        message.role === 'assistant'
          ? (message.tool_calls ?? []).map((call) => `call ${call.id}`)
          : message.role === 'tool'
            ? [`result ${message.tool_call_id}`]
            : [],
      );
      assert.deepEqual(pairs, ['call call_0', 'result call_0', 'call call_0_2', 'result call_0_2']);
    });
  },
);

describe('withUniqueToolCallIds', () => {
  const turn = (ids: string[]): CompletedTurn => ({
    text: '',
    finishReason: 'tool_use',
    usage: zeroUsage(),
    toolCalls: ids.map((id) => ({ id, name: 'lookup', input: {} })),
    responseMessages: [
      {
        role: 'assistant',
        content: ids.map((id) => ({
          type: 'tool-call' as const,
          toolCallId: id,
          toolName: 'lookup',
          input: {},
        })),
      },
    ],
  });
  const earlier: ModelMessage[] = [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'lookup', input: {} }] },
  ];

  it('renames an id used earlier or twice in the turn, in the calls and the assistant message alike', () => {
    const unique = withUniqueToolCallIds(turn(['a', 'b', 'b']), earlier);
    assert.deepEqual(
      unique.toolCalls.map((call) => call.id),
      ['a_2', 'b', 'b_2'],
    );
    const content = unique.responseMessages[0]?.content;
    assert.ok(Array.isArray(content));
    assert.deepEqual(
      content.map((part) => (part.type === 'tool-call' ? part.toolCallId : part.type)),
      ['a_2', 'b', 'b_2'],
    );
  });

  it('leaves a turn with unique ids as it is', () => {
    const original = turn(['x', 'y']);
    assert.equal(withUniqueToolCallIds(original, earlier), original);
  });
});
