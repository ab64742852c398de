import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject } from '../../../domain/json-object.ts';
import type { UsageTriple } from '../../../domain/run-events.ts';
import type { FollowedRunEvent } from '../../../engine/log/run-event-follower.ts';

/** `_meta` keys of a tool result (extensions §9). */
export const RUN_ID_META = 'agent-runs/runId';
export const USAGE_META = 'agent-runs/usage';

export interface RunToolResultOptions {
  /** The tool declares an object `outputSchema`: a reply that is not a JSON object is an error. */
  objectOutput: boolean;
  /** Each piece of reply text as it streams, with the characters streamed so far (this piece included). */
  onText?: (text: string, streamedChars: number) => Promise<void> | void;
}

/**
 * The one translation from a run's event log to MCP: reads the run's events (from the follower that
 * serves SSE, so a run taken over after a crash goes on) to the terminal one and answers the
 * `tools/call` result. Text deltas go to `onText` (progress notifications); `result` is the reply
 * text, with `structuredContent` when the run had an `outputSchema` and the reply is a JSON object;
 * `error` and `cancelled` are `isError`. Every answer carries the run id and, once known, the usage
 * triple in `_meta`. Undefined when the events end before the terminal one (the caller stopped following).
 */
export async function runToolResult(
  runId: string,
  events: AsyncIterable<FollowedRunEvent>,
  options: RunToolResultOptions,
): Promise<CallToolResult | undefined> {
  let streamedChars = 0;
  for await (const event of events) {
    switch (event.type) {
      case 'assistant_delta':
        streamedChars += event.data.text.length;
        await options.onText?.(event.data.text, streamedChars);
        break;
      case 'result': {
        const { text, structuredOutput } = event.data;
        const meta = metaOf(runId, event.data);
        if (!structuredOutput.schemaRequested) return { content: [textContent(text)], _meta: meta };
        const structured = jsonObjectOf(text);
        if (structured) return { content: [textContent(text)], structuredContent: structured, _meta: meta };
        if (!options.objectOutput) return { content: [textContent(text)], _meta: meta };
        return errorResult(
          `run ${runId} succeeded, but its reply is not a JSON object as the agent's outputSchema requires: ${text}`,
          meta,
        );
      }
      case 'error':
        return errorResult(`run ${runId} failed: ${event.data.error}`, metaOf(runId, event.data));
      case 'cancelled':
        return errorResult(
          `run ${runId} was cancelled${event.data.reason ? `: ${event.data.reason}` : ''}`,
          metaOf(runId, event.data),
        );
      default:
        break;
    }
  }
  return undefined;
}

/** A tool error (`isError`): the model calling the tool reads the message. */
export function errorResult(message: string, meta?: Record<string, unknown>): CallToolResult {
  return { content: [textContent(message)], isError: true, ...(meta && { _meta: meta }) };
}

function textContent(text: string) {
  return { type: 'text' as const, text };
}

function metaOf(runId: string, ended: UsageTriple): Record<string, unknown> {
  return {
    [RUN_ID_META]: runId,
    [USAGE_META]: { tokens: ended.tokens, turns: ended.turns, model: ended.model },
  };
}

function jsonObjectOf(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isJsonObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
