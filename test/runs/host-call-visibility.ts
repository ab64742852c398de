/** The rule "host tool calls are internal", checked on what a client receives of a run. */
import assert from 'node:assert/strict';
import { ofType } from '../support/run-fixture.ts';
import type { SseFrame } from '../support/sse-client.ts';

/** The controls' synthetic tools: reserved names, served by the service itself. */
export const HOST_TOOL_NAMES: readonly string[] = ['final_report', 'set_model_response', 'update_task_plan'];

/** Every client-visible event about one tool call. */
const TOOL_EVENT_TYPES = [
  'local_tool_call',
  'tool_call',
  'tool_result',
  'tool_files',
  'local_tool_result_in',
];

/** The tool calls each `assistant_message` lists, as `name` only, in order (`[]` for none). */
export function listedToolCalls(frames: readonly SseFrame[]): string[][] {
  return ofType(frames, 'assistant_message').map((frame) =>
    ((frame.data.data.toolCalls as Array<{ name: string }> | undefined) ?? []).map((call) => call.name),
  );
}

/**
 * No `assistant_message.toolCalls` entry and no tool event names a host tool or one of the host
 * calls' ids (`local_tool_result_in` carries only the id).
 */
export function assertHostCallsInternal(
  frames: readonly SseFrame[],
  hostCallIds: readonly string[] = [],
): void {
  for (const frame of ofType(frames, 'assistant_message')) {
    for (const call of (frame.data.data.toolCalls ?? []) as Array<{ id: string; name: string }>) {
      assert.ok(!HOST_TOOL_NAMES.includes(call.name), `assistant_message lists the host call ${call.name}`);
      assert.ok(!hostCallIds.includes(call.id), `assistant_message lists the host call ${call.id}`);
    }
  }
  for (const type of TOOL_EVENT_TYPES) {
    for (const frame of ofType(frames, type)) {
      const { name, toolUseId } = frame.data.data as { name?: string; toolUseId?: string };
      assert.ok(name === undefined || !HOST_TOOL_NAMES.includes(name), `${type} names the host tool ${name}`);
      assert.ok(
        toolUseId === undefined || !hostCallIds.includes(toolUseId),
        `${type} is about the host call ${toolUseId}`,
      );
    }
  }
}
