import { setTimeout as sleep } from 'node:timers/promises';
import type { ToolResultPoster } from './post-tool-answer.ts';
import { backoffMs, isTransient } from './transient-failure.ts';

/** The part of the client a restarted dispatcher needs: posting results and reading the run's pending calls. */
export interface PendingCallsReader extends ToolResultPoster {
  runs: ToolResultPoster['runs'] & {
    get(
      runId: string,
      options?: { signal?: AbortSignal; maxRetries?: number },
    ): Promise<{ pendingToolCalls?: readonly { toolUseId: string }[] | undefined }>;
  };
}

const MAX_ATTEMPTS = 5;

/**
 * The `toolUseId`s the run still waits for, from its snapshot; undefined from a server older than
 * `pendingToolCalls`. A failure a second try may pass is retried; other failures reject.
 */
export async function readPendingCalls(
  client: PendingCallsReader,
  runId: string,
  signal: AbortSignal,
): Promise<Set<string> | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      const snapshot = await client.runs.get(runId, { signal, maxRetries: 0 });
      const pending = snapshot.pendingToolCalls;
      return pending && new Set(pending.map((call) => call.toolUseId));
    } catch (error) {
      if (signal.aborted || attempt >= MAX_ATTEMPTS || !isTransient(error)) throw error;
      await sleep(backoffMs(attempt, error), undefined, { signal });
    }
  }
}
