import type { RunStreamOptions } from './run-stream.ts';
import type { PendingCallsReader } from './tools/pending-calls.ts';
import {
  isTerminalEvent,
  type CancelledData,
  type ErrorData,
  type ResultData,
  type RunEvent,
  type TerminalRunEvent,
} from './types.ts';

/** The tool side of one followed run (what `LocalToolDispatcher.open` returns). */
export interface RunToolsSession {
  /** Fed every event of the run, in order. */
  handle(event: RunEvent): void;
  /** Stops answering and waits for calls in flight to settle. */
  close(): Promise<void>;
}

/**
 * Answers a run's `local_tool_call` events: the SDK's `LocalToolDispatcher` is one. Each call gets
 * exactly one tool result, posted with `client.runs.submitToolResult`; `client` is the part of the
 * client it needs (an `AgentRunsClient` fits).
 */
export interface RunTools {
  open(
    client: PendingCallsReader,
    runId: string,
    options: {
      signal?: AbortSignal;
      /** False when the run was just created by this client: no call in its log is answered yet. */
      catchUp?: boolean;
    },
  ): RunToolsSession;
}

export interface FollowRunOptions extends RunStreamOptions {
  /** Called for every event, in order, before the next is read. */
  onEvent?(event: RunEvent): unknown;
  /** Answers the run's client-resolved tool calls. */
  tools?: RunTools;
}

/** What following a run needs of the client: the run's stream, and what its tool session reads and posts. */
export interface FollowedRuns extends PendingCallsReader {
  runs: PendingCallsReader['runs'] & {
    stream(runId: string, options?: RunStreamOptions): AsyncIterable<RunEvent>;
  };
}

/** How a run ended: its terminal event, by type. */
export type RunOutcome = { runId: string; event: TerminalRunEvent } & (
  | { type: 'result'; result: ResultData }
  | { type: 'error'; error: ErrorData }
  | { type: 'cancelled'; cancelled: CancelledData }
);

/**
 * Follows a run's stream to its terminal event, handing each event to `onEvent` and to the tool
 * session of `tools`, which answers the run's `local_tool_call` events.
 */
export async function followRun(
  client: FollowedRuns,
  runId: string,
  options: FollowRunOptions & { createdHere?: boolean } = {},
): Promise<RunOutcome> {
  const { onEvent, tools, createdHere, ...streamOptions } = options;
  const toolSession = tools?.open(client, runId, {
    ...(options.signal && { signal: options.signal }),
    ...(createdHere && { catchUp: false }),
  });
  try {
    for await (const event of client.runs.stream(runId, streamOptions)) {
      toolSession?.handle(event);
      await onEvent?.(event);
      if (isTerminalEvent(event)) return outcomeOf(runId, event);
    }
  } finally {
    await toolSession?.close();
  }
  // The stream ends only after a terminal event or by throwing.
  throw new Error(`the stream of run ${runId} ended without a terminal event`);
}

function outcomeOf(runId: string, event: TerminalRunEvent): RunOutcome {
  switch (event.type) {
    case 'result':
      return { runId, event, type: 'result', result: event.data };
    case 'error':
      return { runId, event, type: 'error', error: event.data };
    case 'cancelled':
      return { runId, event, type: 'cancelled', cancelled: event.data };
  }
}
