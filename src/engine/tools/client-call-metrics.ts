import type { ToolCallRecord } from '../../domain/tool-call.ts';
import type { RunMetrics, ToolCallOutcome } from '../ports.ts';

/**
 * Counts a client-resolved call once its wait is over, by its client kind (`local`, `a2a_local`,
 * `mcp_local`): from when it was stored, just before its `local_tool_call` went out, to `endedAt`.
 * Called only by whoever moved the call out of `pending` (the store hands that record to one caller),
 * so a call is counted once whichever process sees its end.
 */
export function countClientToolCall(
  metrics: RunMetrics,
  call: ToolCallRecord,
  outcome: ToolCallOutcome,
  endedAt: string,
): void {
  const seconds = Math.max(0, (Date.parse(endedAt) - Date.parse(call.createdAt)) / 1000);
  metrics.toolCall(call.kind, outcome, seconds);
}
