/** Shared helpers for the client-resolved tool tests: a live stream watcher and the provider wire. */

import type { RecordedRequest } from '../fakes/scripted-reply.ts';
import type { RunFixture } from '../support/run-fixture.ts';
import type { TestResponse } from '../support/test-server.ts';
import { watchStream, type RunWatch } from '../support/stream-watch.ts';

export { ofType } from '../support/run-fixture.ts';
export { watchStream, type RunWatch };

export const TERMINAL_TYPES: readonly string[] = ['result', 'error', 'cancelled'];

/** The weather tool of the examples: one required string argument. */
export const WEATHER_TOOL = {
  kind: 'local',
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
} as const;

/** A one-pixel PNG, base64. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Creates a run that must be accepted (202) and starts watching its stream. */
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
