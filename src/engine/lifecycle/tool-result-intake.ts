import type { Logger } from 'pino';
import { DomainError, NotFoundError } from '../../domain/errors.ts';
import type { ClientToolResult } from '../../domain/tool-call.ts';
import type { RunMetrics, RunStore, ToolCallStore } from '../ports.ts';
import { noMetrics } from '../ports/metrics.ts';
import { countClientToolCall } from '../tools/client-call-metrics.ts';
import type { RunDispatcher } from './run-dispatcher.ts';

export class UnknownToolUseError extends DomainError {
  constructor(toolUseId: string) {
    super(
      'unknown_tool_use',
      `no pending local tool call '${toolUseId}' on this run (unknown, or already answered)`,
    );
  }
}

export class RunTerminalError extends DomainError {
  constructor() {
    super('run_terminal', 'the run has already produced its terminal event; the result was dropped');
  }
}

export type IntakeOutcome = 'accepted' | 'ignored_after_cancel';

/**
 * Accepts a client's answer to a pending call on any replica: the answer is
 * stored (once per call) before the request is acknowledged, then the run,
 * parked while it waits, is woken. After a cancellation an answer to a pending call still counts and
 * any other is accepted and ignored; after any other terminal event it is refused. The call is
 * counted here, where its one answer is stored, not where the run resumes (possibly on another process).
 */
export async function acceptToolResult(
  deps: {
    runs: RunStore;
    toolCalls: ToolCallStore;
    dispatcher: RunDispatcher;
    logger: Logger;
    metrics?: RunMetrics;
  },
  workspaceId: string,
  runId: string,
  toolUseId: string,
  answer: ClientToolResult,
): Promise<IntakeOutcome> {
  const run = await deps.runs.findState(workspaceId, runId);
  if (!run) throw new NotFoundError('Run not found');
  if (run.endedAt !== null) {
    if (run.status === 'cancelled') return 'ignored_after_cancel';
    throw new RunTerminalError();
  }
  const answered = await deps.toolCalls.answer(run.id, toolUseId, answer);
  if (answered) {
    countClientToolCall(
      deps.metrics ?? noMetrics,
      answered,
      'error' in answer ? 'error' : 'ok',
      answered.answeredAt ?? new Date().toISOString(),
    );
    // The last answer ends the run's wait (the run's round ends it too, should this write fail).
    await deps.toolCalls
      .endWaiting(run.id)
      .catch((error: unknown) =>
        deps.logger.warn({ runId: run.id, err: error }, 'showing the answered run as running failed'),
      );
    // The answer is stored (the run finds it when it resumes): a wake that fails now is left to the
    // dispatch sweep, and the client must not be told to send again what is already accepted.
    // A run not parked yet sees the answer when it parks (it reads the calls again after parking).
    await deps.dispatcher
      .wake(run.id)
      .catch((error: unknown) =>
        deps.logger.warn({ runId: run.id, toolUseId, err: error }, 'waking the run for its answer failed'),
      );
    return 'accepted';
  }
  // Once cancelled, a result that answers no pending call is accepted and ignored, as after the end.
  if (run.cancelRequestedAt !== null) return 'ignored_after_cancel';
  const call = await deps.toolCalls.findOne(run.id, toolUseId);
  if (call?.status === 'timed_out') throw new RunTerminalError();
  throw new UnknownToolUseError(toolUseId);
}
