/** Shared helpers for the client-resolved tool tests: a live stream watcher and the provider wire. */

import assert from 'node:assert/strict';
import type { RecordedRequest } from '../fakes/scripted-reply.ts';
import { ofType, types, type RunFixture } from '../support/run-fixture.ts';
import type { SseFrame } from '../support/sse-client.ts';
import type { TestResponse } from '../support/test-server.ts';
import { watchStream, type RunWatch } from '../support/stream-watch.ts';

export { ofType };
export { watchStream, type RunWatch };

export const TERMINAL_TYPES: readonly string[] = ['result', 'error', 'cancelled'];

/** The weather tool of the examples: one required string argument. */
export const WEATHER_TOOL = {
  kind: 'local',
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
} as const;

/**
 * The weather round trip the protocol suites script (two replies queued by the caller: a call of
 * get_weather for Paris with usage 30 in / 10 out, then 'Sunny in Paris.' with 60 in, 20 cached,
 * 5 out): the run offers WEATHER_TOOL at reasoning level medium, its local_tool_call is checked and
 * answered '21C and sunny', and the frames to the end come back checked for what every protocol
 * shares: a tool_use turn with the call, an end_turn, the echoed answer, and a result over two
 * turns with the usage summed. The provider's wire is the caller's to check.
 */
export async function weatherRoundTrip(fixture: RunFixture): Promise<SseFrame[]> {
  const run = await fixture.startRun({
    systemPrompt: 's',
    prompt: 'weather in Paris?',
    tools: [WEATHER_TOOL],
    reasoningLevel: 'medium',
  });
  try {
    const call = await run.waitForType('local_tool_call');
    assert.deepEqual(call.data.data, {
      toolUseId: 'call_weather_1',
      name: 'get_weather',
      args: { city: 'Paris' },
      kind: 'local',
    });
    const posted = await postToolResult(fixture, run.runId, {
      toolUseId: 'call_weather_1',
      result: '21C and sunny',
    });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    const frames = await run.ended;

    assert.equal(types(frames).at(-1), 'result');
    const messages = ofType(frames, 'assistant_message').map((frame) => frame.data.data);
    assert.equal(messages.length, 2);
    assert.equal(messages[0]?.finishReason, 'tool_use');
    assert.deepEqual(messages[0]?.toolCalls, [
      { id: 'call_weather_1', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    assert.equal(messages[1]?.finishReason, 'end_turn');
    assert.deepEqual(
      ofType(frames, 'local_tool_result_in').map((frame) => frame.data.data.output),
      ['21C and sunny'],
    );
    const result = frames.at(-1)?.data.data;
    assert.equal(result?.text, 'Sunny in Paris.');
    assert.equal(result?.turns, 2);
    assert.deepEqual(result?.tokens, {
      inputTokens: 90,
      cachedTokens: 20,
      reasoningTokens: 0,
      outputTokens: 15,
    });
    return frames;
  } finally {
    run.close();
  }
}

/** A one-pixel PNG, base64. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** POST {ws}/agent-runs/{runId}/tool-results with the fixture's key. */
export function postToolResult(fixture: RunFixture, runId: string, body: unknown): Promise<TestResponse> {
  return fixture.server.request('POST', `${fixture.ws}/agent-runs/${runId}/tool-results`, {
    body,
    headers: fixture.headers,
  });
}

export function snapshotOf(fixture: RunFixture, runId: string): Promise<TestResponse> {
  return fixture.server.request('GET', `${fixture.ws}/agent-runs/${runId}`, { headers: fixture.headers });
}

/** Anthropic wire: the request body as the fake recorded it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider wire JSON
export const bodyOf = (request: RecordedRequest | undefined): Record<string, any> => {
  if (!request) throw new Error('no such provider request');
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider wire JSON
  return request.body as Record<string, any>;
};

/** Anthropic wire: every `tool_result` block of a request, in conversation order. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider wire JSON
export function toolResultBlocks(request: RecordedRequest | undefined): Record<string, any>[] {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider wire JSON
  const messages = bodyOf(request).messages as { content: string | Record<string, any>[] }[];
  return messages.flatMap((message) =>
    typeof message.content === 'string'
      ? []
      : message.content.filter((block) => block.type === 'tool_result'),
  );
}

/** Anthropic wire: a tool_result's content as text (string content, or its text blocks joined). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider wire JSON
export function toolResultText(block: Record<string, any> | undefined): string {
  if (!block) throw new Error('no such tool_result');
  if (typeof block.content === 'string') return block.content;
  return (block.content as { type: string; text?: string }[])
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('');
}

/** Anthropic wire: the model-facing tool definitions of a request, by name. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider wire JSON
export function toolsByName(request: RecordedRequest | undefined): Map<string, Record<string, any>> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider wire JSON
  const tools = (bodyOf(request).tools ?? []) as Record<string, any>[];
  return new Map(tools.map((tool) => [tool.name as string, tool]));
}
