import type { Logger } from 'pino';
import { isStoreUnavailable } from '../../domain/errors.ts';
import type { Run } from '../../domain/run.ts';
import type { EventLogWriter } from '../log/event-log-writer.ts';
import { RunEmitter } from '../log/run-emitter.ts';
import { EventLogFailure, RunCancelled, ServiceShutdown, storeOutageOf } from '../loop/abort-reasons.ts';
import type { ControlPipeline } from '../loop/control-pipeline.ts';
import type { RetryPolicy } from '../loop/retry-policy.ts';
import type { RunFailure } from '../loop/terminal-events.ts';
import { TurnLoop, type TurnLoopDeps } from '../loop/turn-loop.ts';
import type { EventStore, RunJob, RunJobOutcome, RunMetrics, RunSignals, RunStore } from '../ports.ts';
import { noMetrics } from '../ports/metrics.ts';
import { noTracing, type RunTracing } from '../ports/tracing.ts';
import { freshStart, loopStartFromLog } from '../takeover/loop-start.ts';
import type { RunParked } from '../tools/tool-executor.ts';
import {
  DEFAULT_STORE_OUTAGE_LIMIT_MS,
  executeWithRetries,
  WORKER_ERROR,
  type AttemptProgress,
} from './execution-retries.ts';
import type { RunDispatcher } from './run-dispatcher.ts';
import { RunEnd } from './run-end.ts';
import { runLogger } from './run-logger.ts';
import { endsWithTerminalEvent, endWithError, sessionEnd } from './terminal-writes.ts';

export interface RunExecutorDeps extends TurnLoopDeps {
  runs: RunStore;
  /** Counts executing runs, queue waits and finished runs (none counted when absent). */
  metrics?: RunMetrics;
  /** Runs each execution in its run's trace and reports the run's span at its end (none when absent). */
  tracing?: RunTracing;
  dispatcher: RunDispatcher;
  /**
   * The run controls of a run (`controlPipelineFor` its spec); `signal` aborts when the run is
   * cancelled or its execution stops (a control's own model calls give up then); `logger` is the
   * run's.
   */
  controlsFor(run: Run, signal: AbortSignal, logger: Logger): ControlPipeline;
  events: EventStore;
  writer: EventLogWriter;
  signals: RunSignals;
  /** The service's logger; a run's lines go through its child (`runLogger`). */
  logger: Logger;
  /** Aborted when the process stops: runs in progress are handed over (or left for a restart). */
  shutdown: AbortSignal;
  /**
   * Check every write against the run's attempt. Needed only where several workers can hold a run
   * (scale-out); the embedded service has one worker, and the check would cost a query per commit.
   */
  fenceWrites: boolean;
  /** Retries of a run whose execution failed outside the agent (a refused write, a bug), before giving up. */
  executionRetry: RetryPolicy;
  /**
   * How long a run waits for an unreachable database or Redis, taken up again from its log after
   * each backoff, before it ends failed with errorClass `unavailable` (5 minutes by default).
   */
  storeOutageLimitMs?: number;
  /**
   * Where signals can be lost (Redis pub/sub), how often a running run also reads its stored cancel
   * request; undefined where every signal arrives (in-process).
   */
  cancelCheckMs: number | undefined;
}

/**
 * The worker's job handler. It claims the run with a new attempt number (the
 * fencing token on all its writes), continues it from its log if it ran
 * before (it parked, or another worker started it), and ends it with exactly
 * one terminal event, unless it parks on a client tool, the process stops
 * first (the run is handed over) or a newer attempt took it. A run that ends
 * or parks frees its workspace's slot for the next waiting run.
 */
export class RunExecutor {
  readonly #deps: RunExecutorDeps;
  readonly #end: RunEnd;
  constructor(deps: RunExecutorDeps) {
    this.#deps = deps;
    this.#end = new RunEnd(deps.metrics ?? noMetrics, deps.tracing ?? noTracing);
  }

  /**
   * Runs the job to its end, taking the run up again from its log after a failure outside the agent
   * (`executeWithRetries`: while the store does not answer, then for a few more tries).
   */
  execute(job: RunJob): Promise<RunJobOutcome> {
    const { shutdown, executionRetry, writer, logger } = this.#deps;
    return executeWithRetries(
      job,
      {
        attempt: (progress) => this.#executeOnce(job, progress),
        abandon: (failure) => this.#abandon(job, failure),
      },
      {
        shutdown,
        executionRetry,
        storeOutageLimitMs: this.#deps.storeOutageLimitMs ?? DEFAULT_STORE_OUTAGE_LIMIT_MS,
        writer,
        logger,
      },
    );
  }

  /** Ends a run that could not be carried on with a retryable error after its last durable event. */
  async #abandon(job: RunJob, failure: RunFailure): Promise<void> {
    const claimed = await this.#deps.runs.claimAttempt(job.runId, job.admission);
    if (!claimed) return;
    const { run, attempt } = claimed;
    const emitter = new RunEmitter(
      this.#deps.writer,
      run.id,
      await this.#deps.events.lastSeq(run.id),
      () => undefined,
      this.#deps.fenceWrites ? attempt : undefined,
    );
    this.#end.reported(run, await endWithError(emitter, run, failure), runLogger(this.#deps.logger, run));
    await this.#deps.dispatcher.slotFreed(run.workspaceId);
  }

  get #metrics(): RunMetrics {
    return this.#deps.metrics ?? noMetrics;
  }

  get #tracing(): RunTracing {
    return this.#deps.tracing ?? noTracing;
  }

  async #executeOnce(job: RunJob, progress: AttemptProgress): Promise<RunJobOutcome> {
    const { runs, events, writer, signals, logger } = this.#deps;

    // `abort` stops model calls for any reason; `stop` only for reasons that also end tool waits.
    const abort = new AbortController();
    const stop = new AbortController();
    const halt = (reason: Error) => {
      if (!abort.signal.aborted) abort.abort(reason);
      if (!stop.signal.aborted) stop.abort(reason);
    };
    const stopListening = await signals.listen(job.runId, (signal) => {
      if (signal.kind === 'cancel' && !abort.signal.aborted)
        abort.abort(new RunCancelled(signal.cut === true));
    });
    const onShutdown = () => halt(new ServiceShutdown());
    let cancelCheck: NodeJS.Timeout | undefined;
    this.#deps.shutdown.addEventListener('abort', onShutdown, { once: true });
    let executing = false;
    try {
      // Claimed after listening: a cancel is either signalled to us or already in the row we get back.
      const claimed = await runs.claimAttempt(job.runId, job.admission);
      if (!claimed) return 'done';
      progress.claimed = true;
      const { run, attempt } = claimed;
      progress.run = run;
      const log = runLogger(logger, run);
      if (attempt === 1) this.#metrics.runQueueWait(secondsSince(run.createdAt));
      this.#metrics.runExecuting(1);
      executing = true;
      if (run.cancelRequestedAt) abort.abort(new RunCancelled());
      else cancelCheck = this.#checkCancelRequest(run, abort, log);
      // The first attempt finds an empty log: nobody else could have written to it.
      const lastSeq = attempt === 1 ? 0 : await events.lastSeq(run.id);
      log.info({ attempt, resumingAfterSeq: lastSeq }, 'run started');
      const emitter = new RunEmitter(
        writer,
        run.id,
        lastSeq,
        (error) => halt(new EventLogFailure(error)),
        this.#deps.fenceWrites ? attempt : undefined,
      );
      const start = lastSeq > 0 ? await loopStartFromLog(this.#deps, run.id) : freshStart();
      if (!start) {
        this.#end.reported(
          run,
          await endWithError(emitter, run, {
            ...WORKER_ERROR,
            message: 'the run was interrupted and could not be resumed; create it again',
          }),
          log,
        );
        await this.#deps.dispatcher.slotFreed(run.workspaceId);
        return 'done';
      }

      // The run's execution context: what the loop, its tools and its controls log carries the run.
      const loop = new TurnLoop(
        { ...this.#deps, logger: log },
        run,
        this.#deps.controlsFor(run, abort.signal, log),
        emitter,
        { abort: abort.signal, stop: stop.signal },
        start,
      );
      const end = await this.#tracing.inRun(run, () => loop.execute());
      if (abort.signal.reason instanceof ServiceShutdown) {
        log.info({ attempt }, 'run handed over');
        return 'handed_over';
      }
      if (emitter.fencedOut) return 'done';
      // Thrown to `execute`, which takes the run up again from its log once the store answers.
      if (end.kind === 'halted') throw end.error;
      const outage = storeOutageOf(emitter.failure);
      if (outage) throw outage;
      if (end.kind === 'parked') {
        await this.#park(run, attempt, emitter, end, log);
        return 'done';
      }
      const terminal = end.event;
      const readLastSeq = () => events.lastSeq(run.id);
      if (emitter.failure !== undefined) await emitter.resync(readLastSeq);
      const session = sessionEnd(run, terminal, loop.retained);
      try {
        await emitter.end(terminal, session);
      } catch (error) {
        if (emitter.fencedOut) return 'done';
        // The store went away: the run is taken up again from its log (and found ended if it was).
        if (isStoreUnavailable(error)) throw error;
        // Renumber after what the log really holds and write the terminal event once more, unless
        // the failure was only reported and the commit did write it.
        log.error({ err: error }, 'writing the terminal event failed; retrying');
        await emitter.resync(readLastSeq);
        if (await endsWithTerminalEvent(events, run.id, emitter.lastSeq)) {
          this.#end.reported(run, terminal, log);
          return 'done';
        }
        await emitter.end(terminal, session);
      }
      this.#end.reported(run, terminal, log);
      await this.#deps.dispatcher.slotFreed(run.workspaceId);
      return 'done';
    } finally {
      if (executing) this.#metrics.runExecuting(-1);
      clearInterval(cancelCheck);
      stopListening();
      this.#deps.shutdown.removeEventListener('abort', onShutdown);
    }
  }

  /**
   * The run waits for its client's answers in storage, holding no worker: parked once its events are
   * durable, woken by an answer or its deadline. An answer that landed after the loop's last read
   * found the run not parked yet, so it is looked for again now.
   */
  async #park(run: Run, attempt: number, emitter: RunEmitter, parked: RunParked, log: Logger): Promise<void> {
    const { dispatcher, toolCalls } = this.#deps;
    await emitter.durable();
    if (!(await dispatcher.park(run.id, attempt, parked.wakeAt))) return;
    log.info({ attempt, wakeAt: new Date(parked.wakeAt).toISOString() }, 'run parked');
    const calls = await toolCalls.find(run.id, parked.waitingFor);
    if (calls.some((call) => call.status !== 'pending')) await dispatcher.wake(run.id);
    await dispatcher.slotFreed(run.workspaceId);
  }

  /** Reads the run's stored cancel request every `cancelCheckMs`, for a cancel signal that got lost. */
  #checkCancelRequest(run: Run, abort: AbortController, log: Logger): NodeJS.Timeout | undefined {
    const { cancelCheckMs, runs } = this.#deps;
    if (cancelCheckMs === undefined) return undefined;
    const timer = setInterval(() => {
      runs.findState(run.workspaceId, run.id).then(
        (state) => {
          if (state?.cancelRequestedAt && !abort.signal.aborted) abort.abort(new RunCancelled());
        },
        (error: unknown) => log.warn({ err: error }, 'reading the cancel request failed'),
      );
    }, cancelCheckMs);
    timer.unref();
    return timer;
  }
}

function secondsSince(isoTime: string): number {
  return Math.max(0, (Date.now() - Date.parse(isoTime)) / 1000);
}
