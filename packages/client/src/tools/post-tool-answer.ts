import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidRequestError, RunTerminalError, UnknownToolUseError } from '../errors.ts';
import { capUtf8, ERROR_MAX_BYTES, messageOf, type ToolAnswer } from './tool-answer.ts';
import { backoffMs, isTransient } from './transient-failure.ts';

/** The body of the tool-results route. */
export type ToolResultBody = { toolUseId: string } & ToolAnswer;

/** The part of the client that posts tool results (`AgentRunsClient` has it). */
export interface ToolResultPoster {
  runs: {
    submitToolResult(
      runId: string,
      body: ToolResultBody,
      options?: { maxRetries?: number },
    ): Promise<unknown>;
  };
}

/**
 * How posting one answer ended: `posted` (the service took ours), `answered_elsewhere` (404
 * `unknown_tool_use`: another client answered, or the call is gone), `run_ended` (409
 * `run_terminal`).
 */
export type PostOutcome = 'posted' | 'answered_elsewhere' | 'run_ended';

const MAX_ATTEMPTS = 6;

/**
 * Posts one answer, retrying what may pass on a second try (no response, 429, 5xx): a retry
 * cannot answer twice, because the service takes one result per `toolUseId` and refuses the
 * rest with 404. A result the service refuses as invalid (such as a file of a MIME type it does
 * not take) is replaced by an error saying so, so the call still gets its one answer.
 */
export async function postToolAnswer(
  client: ToolResultPoster,
  runId: string,
  toolUseId: string,
  answer: ToolAnswer,
  options: { signal?: AbortSignal; isAnswered?: () => boolean } = {},
): Promise<PostOutcome> {
  let body: ToolResultBody = { toolUseId, ...answer };
  for (let attempt = 1; ; attempt++) {
    if (options.isAnswered?.()) return 'answered_elsewhere';
    try {
      // This loop retries (and knows what a repeated post means): the transport does not.
      await client.runs.submitToolResult(runId, body, { maxRetries: 0 });
      return 'posted';
    } catch (error) {
      if (error instanceof UnknownToolUseError) return 'answered_elsewhere';
      if (error instanceof RunTerminalError) return 'run_ended';
      if (error instanceof InvalidRequestError && 'result' in body) {
        body = {
          toolUseId,
          error: capUtf8(`the service refused the tool's result: ${messageOf(error)}`, ERROR_MAX_BYTES),
        };
        continue;
      }
      if (!isTransient(error) || attempt >= MAX_ATTEMPTS || options.signal?.aborted) throw error;
      await sleep(backoffMs(attempt, error), undefined, options.signal ? { signal: options.signal } : {});
    }
  }
}
