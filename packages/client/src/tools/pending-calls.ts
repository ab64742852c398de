import { setTimeout as sleep } from 'node:timers/promises';
import { AgentRunsError, RateLimitError } from '../errors.ts';
import type { ToolResultPoster } from './post-tool-answer.ts';

/** The part of the client a restarted dispatcher needs: posting results and reading the run's pending calls. */
export interface PendingCallsReader extends ToolResultPoster {
  runs: ToolResultPoster['runs'] & {
    get(
      runId: string,
      options?: { signal?: AbortSignal },
    ): Promise<{ pendingToolCalls?: readonly { toolUseId: string }[] | undefined }>;
  };
}

const MAX_ATTEMPTS = 5;
const FIRST_BACKOFF_MS = 200;

/**
 * The `toolUseId`s the run still waits for, from its snapshot. A failure that may pass (no
 * response, 429, 5xx) is retried; other failures reject.
 */
export async function readPendingCalls(
  client: PendingCallsReader,
  runId: string,
  signal: AbortSignal,
): Promise<Set<string>> {
  for (let attempt = 1; ; attempt++) {
    try {
      const snapshot = await client.runs.get(runId, { signal });
      return new Set((snapshot.pendingToolCalls ?? []).map((call) => call.toolUseId));
    } catch (error) {
      if (signal.aborted || attempt >= MAX_ATTEMPTS || !mayPass(error)) throw error;
      const retryAfterMs = error instanceof RateLimitError ? (error.retryAfterSeconds ?? 0) * 1000 : 0;
      await sleep(Math.max(retryAfterMs, FIRST_BACKOFF_MS * 2 ** (attempt - 1)), undefined, { signal });
    }
  }
}

function mayPass(error: unknown): boolean {
  if (!(error instanceof AgentRunsError)) return true; // no response at all
  return error.status === 429 || error.status >= 500;
}
