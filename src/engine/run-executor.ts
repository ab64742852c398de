import type { Logger } from 'pino';
import type { RunRepository } from '../storage/repositories/run-repository.ts';
import { EventLogFailure, RunCancelled, ServiceShutdown } from './abort-reasons.ts';
import type { EventLogWriter } from './event-log-writer.ts';
import type { EventStore, RunJob, RunSignals } from './ports.ts';
import { RunEmitter } from './run-emitter.ts';
import { RunExecution, type RunExecutionDeps } from './run-execution.ts';
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

  async execute(job: RunJob): Promise<void> {
    const { runs, events, writer, signals, logger } = this.#deps;
    const run = await runs.findByIdAnyWorkspace(job.runId);
    if (!run || run.endedAt !== null) return;

    const abort = new AbortController();
    const stopListening = signals.listen(run.id, (signal) => {
      if (signal.kind === 'cancel' && !abort.signal.aborted) abort.abort(new RunCancelled());
    });
    const onShutdown = () => abort.abort(new ServiceShutdown());
    this.#deps.shutdown.addEventListener('abort', onShutdown, { once: true });
    try {
      const lastSeq = await events.lastSeq(run.id);
      const emitter = new RunEmitter(writer, run.id, lastSeq, (error) => {
        if (!abort.signal.aborted) abort.abort(new EventLogFailure(error));
      });
      if (lastSeq > 0) {
        // Started before and interrupted (a restart): re-running the model would repeat what the
        // client already saw, so the run ends with an error it can retry.
        const interrupted = interruptedTerminal(run);
        await emitter.end(interrupted.type, interrupted.data, interrupted.outcome);
        return;
      }
      // The stored flag covers a cancel that was signalled before this worker listened.
      const current = await runs.findByIdAnyWorkspace(run.id);
      if (current?.cancelRequestedAt) abort.abort(new RunCancelled());
      await runs.setStatus(run.id, 'running');
      const terminal = await new RunExecution(this.#deps, run, emitter, abort.signal).execute();
      if (abort.signal.reason instanceof ServiceShutdown) return;
      if (emitter.failure !== undefined) emitter.resync(await events.lastSeq(run.id));
      try {
        await emitter.end(terminal.type, terminal.data, terminal.outcome);
      } catch (error) {
        // Renumber after what the log really holds and write the terminal event once more.
        logger.error({ runId: run.id, err: error }, 'writing the terminal event failed; retrying');
        emitter.resync(await events.lastSeq(run.id));
        await emitter.end(terminal.type, terminal.data, terminal.outcome);
      }
    } finally {
      stopListening();
      this.#deps.shutdown.removeEventListener('abort', onShutdown);
    }
  }
}

function interruptedTerminal(run: Run): TerminalEvent {
  const { model } = (run.spec as unknown as RunSpec).effective;
  return errorEvent(
    { message: 'the run was interrupted by a service restart; create it again', code: 'worker_error', retryable: true },
    { tokens: zeroUsage(), turns: 0, model: { id: model.id, provider: model.provider, vendorModelId: model.vendorModelId } },
    NO_STRUCTURED_OUTPUT,
  );
}
