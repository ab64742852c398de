import type { Logger } from 'pino';
import type { RunRepository } from '../storage/repositories/run-repository.ts';
import { EventLogFailure, RunCancelled, ServiceShutdown } from './abort-reasons.ts';
import type { EventLogWriter } from './event-log-writer.ts';
import type { EventStore, RunJob, RunSignals, SessionRunEnd } from './ports.ts';
import type { RetainedToolPair } from '../domain/session.ts';
import { sessionTurnItems } from './session-turns.ts';
import { RunEmitter } from './run-emitter.ts';
import {
  RunExecution,
  type ResumePoint,
  type RunCheckpointState,
  type RunExecutionDeps,
} from './run-execution.ts';
import { errorEvent, NO_STRUCTURED_OUTPUT, type TerminalEvent } from './terminal-events.ts';
import { zeroUsage } from './token-usage.ts';
import type { Run } from '../domain/run.ts';
import type { RunSpec } from '../domain/run-spec.ts';

export interface RunExecutorDeps extends RunExecutionDeps {
  runs: RunRepository;
  events: EventStore;
  writer: EventLogWriter;
  signals: RunSignals;
  logger: Logger;
  /** Aborted when the process stops: runs in progress are left for a restart to pick up. */
  shutdown: AbortSignal;
}

/** The worker's job handler: takes a queued run, executes it, and always leaves it with a terminal event. */
export class RunExecutor {
  readonly #deps: RunExecutorDeps;
  constructor(deps: RunExecutorDeps) {
    this.#deps = deps;
  }

  /**
   * A run can be resumed when its log ends at its checkpoint (a model turn that asked for tools)
   * followed only by the round's calls and answers: it was waiting for the client.
   */
  async #resumePoint(runId: string): Promise<ResumePoint | undefined> {
    const checkpoint = await this.#deps.checkpoints.load<RunCheckpointState>(runId);
    if (!checkpoint) return undefined;
    const after = await this.#deps.events.readAfter(runId, checkpoint.seq, 100_000);
    if (!after.every((event) => RESUMABLE_AFTER_CHECKPOINT.has(event.type))) return undefined;
    const idsOf = (type: string) =>
      new Set(after.filter((event) => event.type === type).map((event) => toolUseIdOf(event.dataJson)));
    return { checkpoint, published: idsOf('local_tool_call'), echoed: idsOf('local_tool_result_in') };
  }

  async execute(job: RunJob): Promise<void> {
    const { runs, events, writer, signals, logger } = this.#deps;
    const run = await runs.findByIdAnyWorkspace(job.runId);
    if (!run || run.endedAt !== null) return;

    // `abort` stops model calls for any reason; `stop` only for reasons that also end tool waits.
    const abort = new AbortController();
    const stop = new AbortController();
    const halt = (reason: Error) => {
      if (!abort.signal.aborted) abort.abort(reason);
      if (!stop.signal.aborted) stop.abort(reason);
    };
    const stopListening = signals.listen(run.id, (signal) => {
      if (signal.kind === 'cancel' && !abort.signal.aborted) abort.abort(new RunCancelled());
    });
    const onShutdown = () => halt(new ServiceShutdown());
    this.#deps.shutdown.addEventListener('abort', onShutdown, { once: true });
    try {
      const lastSeq = await events.lastSeq(run.id);
      const emitter = new RunEmitter(writer, run.id, lastSeq, (error) => halt(new EventLogFailure(error)));
      const resume = lastSeq > 0 ? await this.#resumePoint(run.id) : undefined;
      if (lastSeq > 0 && !resume) {
        // Interrupted in the middle of a model turn: re-running it would repeat what the client
        // already saw, so the run ends with an error it can retry.
        const interrupted = interruptedTerminal(run);
        await emitter.end(interrupted.type, interrupted.data, interrupted.outcome, sessionEnd(run, interrupted, []));
        return;
      }
      // The stored flag covers a cancel that was signalled before this worker listened.
      const current = await runs.findByIdAnyWorkspace(run.id);
      if (current?.cancelRequestedAt) abort.abort(new RunCancelled());
      await runs.setStatus(run.id, 'running');
      const execution = new RunExecution(this.#deps, run, emitter, { abort: abort.signal, stop: stop.signal }, resume);
      const terminal = await execution.execute();
      if (abort.signal.reason instanceof ServiceShutdown) return;
      if (emitter.failure !== undefined) emitter.resync(await events.lastSeq(run.id));
      const session = sessionEnd(run, terminal, execution.retained);
      try {
        await emitter.end(terminal.type, terminal.data, terminal.outcome, session);
      } catch (error) {
        // Renumber after what the log really holds and write the terminal event once more.
        logger.error({ runId: run.id, err: error }, 'writing the terminal event failed; retrying');
        emitter.resync(await events.lastSeq(run.id));
        await emitter.end(terminal.type, terminal.data, terminal.outcome, session);
      }
    } finally {
      stopListening();
      this.#deps.shutdown.removeEventListener('abort', onShutdown);
    }
  }
}

const RESUMABLE_AFTER_CHECKPOINT = new Set(['local_tool_call', 'local_tool_result_in']);

function toolUseIdOf(dataJson: string): string {
  return String((JSON.parse(dataJson) as { toolUseId?: unknown }).toolUseId ?? '');
}

/** A session run's end: a success appends its turns; anything else only frees the session. */
export function sessionEnd(
  run: Run,
  terminal: TerminalEvent,
  retained: readonly RetainedToolPair[],
): SessionRunEnd | undefined {
  if (!run.sessionId) return undefined;
  const succeeded = terminal.type === 'result' && terminal.data.subtype === 'success';
  return {
    sessionId: run.sessionId,
    runId: run.id,
    append: succeeded ? sessionTurnItems(run.spec as unknown as RunSpec, retained, terminal.outcome.finalText ?? '') : null,
  };
}

function interruptedTerminal(run: Run): TerminalEvent {
  const { model } = (run.spec as unknown as RunSpec).effective;
  return errorEvent(
    { message: 'the run was interrupted by a service restart; create it again', code: 'worker_error', retryable: true },
    { tokens: zeroUsage(), turns: 0, model: { id: model.id, provider: model.provider, vendorModelId: model.vendorModelId } },
    NO_STRUCTURED_OUTPUT,
  );
}
