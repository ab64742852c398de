import type { RetainedToolPair } from '../../domain/session-history.ts';
import type { RunTool, ToolCallRequest } from '../ports.ts';
import type { RunEmitter } from '../log/run-emitter.ts';
import type { EmitEvent, HostTool, ToolOutput } from '../loop/run-control.ts';
import type { LoggedRound } from '../takeover/logged-round.ts';

/** Who executes a call: the client (`local_tool_call`), the service (MCP, A2A, HTTP, plugins), or a control. */
export type ExecutorFamily = 'client' | 'server' | 'host';

interface ToolCall<F extends ExecutorFamily, T> {
  family: F;
  call: ToolCallRequest;
  tool: T;
  args: Record<string, unknown>;
}

/** A call ready to execute: its tool found and its arguments valid. */
export type ExecutableCall =
  ToolCall<'client', RunTool> | ToolCall<'server', RunTool> | ToolCall<'host', HostTool>;

export type ExecutableCallOf<F extends ExecutorFamily> = Extract<ExecutableCall, { family: F }>;

export interface CallResult {
  toolUseId: string;
  output: ToolOutput;
  /** A client tool declared with `retain`: kept with the session. */
  retained?: RetainedToolPair;
}

export type BatchOutcome =
  | { kind: 'done'; results: CallResult[] }
  /** A client call got no answer in time: the run ends `error_local_tool_timeout`. */
  | { kind: 'timed_out'; call: { toolUseId: string; name: string }; timeoutMs: number }
  /** Client calls are unanswered: the run waits in storage, holding no worker, until an answer or `wakeAt`. */
  | RunParked;

export interface RunParked {
  kind: 'parked';
  /** The deadline of the calls waited for (epoch ms). */
  wakeAt: number;
  /** The calls still unanswered when the run parked. */
  waitingFor: string[];
}

/** One round of a run, as its executors see it. */
export interface RoundContext {
  runId: string;
  turn: number;
  emitter: RunEmitter;
  emit: EmitEvent;
  /** Aborted when the process stops (or the event log fails): long calls stop where they are. */
  stop: AbortSignal;
  /** Aborted on cancel: calls not started yet are not started, and server calls in flight are aborted. */
  cancel: AbortSignal;
  /** A restarted worker continuing this round: what the log already shows of it. */
  logged?: LoggedRound;
}

/**
 * Executes the calls of one family. A batch is one call, or several
 * consecutive read-only calls the model emitted together (run concurrently,
 * answered in any order); the round hands batches over in model-emit order.
 */
export interface ToolExecutor<F extends ExecutorFamily> {
  execute(batch: readonly ExecutableCallOf<F>[], round: RoundContext): Promise<BatchOutcome>;
}

/** The executor of each family. */
export interface ToolExecutors {
  client: ToolExecutor<'client'>;
  server: ToolExecutor<'server'>;
  host: ToolExecutor<'host'>;
}
