import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { isStoreUnavailable } from '../../domain/errors.ts';
import type { Run } from '../../domain/run.ts';
import { isTerminalEventType } from '../../domain/run-events.ts';
import type { RetainedToolPair } from '../../domain/session-history.ts';
import type { EventLogWriter } from '../log/event-log-writer.ts';
import { RunEmitter } from '../log/run-emitter.ts';
import { EventLogFailure, RunCancelled, ServiceShutdown, storeOutageOf } from '../loop/abort-reasons.ts';
import type { ControlPipeline } from '../loop/control-pipeline.ts';
import { backoffDelayMs, type RetryPolicy } from '../loop/retry-policy.ts';
import { sessionTurnItems } from '../loop/session-turns.ts';
import { errorBeforeAnyTurn, type RunFailure, type TerminalEvent } from '../loop/terminal-events.ts';
import { TurnLoop, type TurnLoopDeps } from '../loop/turn-loop.ts';
import type {
  EventStore,
  RunJob,
  RunJobOutcome,
  RunMetrics,
  RunSignals,
  RunStore,
  SessionRunEnd,
} from '../ports.ts';
import { noMetrics } from '../ports/metrics.ts';
import { noTracing, type RunTracing } from '../ports/tracing.ts';
import { freshStart, loopStartFromLog } from '../takeover/loop-start.ts';
import type { RunParked } from '../tools/tool-executor.ts';
import type { RunDispatcher } from './run-dispatcher.ts';
import { logRunFinished } from './run-end-line.ts';
import { runLogger } from './run-logger.ts';

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

/** A run that failed outside the agent is taken up again, like a takeover, for about a minute and a half. */
export const DEFAULT_EXECUTION_RETRY: RetryPolicy = { maxRetries: 7, baseDelayMs: 1000, maxDelayMs: 30_000 };

/** The spec's bound: a run may end for want of its store only after 5 minutes without it. */
export const DEFAULT_STORE_OUTAGE_LIMIT_MS = 5 * 60_000;

/**
 * While the store does not answer, a halted run is tried again after these waits (jittered), so a
 * run goes on within a few seconds of the store's return; `maxRetries` is unused (the limit is time).
 */
const STORE_OUTAGE_BACKOFF: RetryPolicy = { maxRetries: 0, baseDelayMs: 500, maxDelayMs: 5000 };

/** Whether an attempt got as far as claiming the run (the store answered then), and the run it claimed. */
interface AttemptProgress {
  claimed: boolean;
  run?: Run;
}

const WORKER_ERROR: RunFailure = {
  message: 'the worker could not carry on the run; create it again',
  code: 'worker_error',
  retryable: true,
};

const storeUnavailable = (limitMs: number): RunFailure => ({
  message: `the database or Redis did not answer for ${Math.round(limitMs / 1000)} s; create the run again`,
  errorClass: 'unavailable',
  code: 'unavailable',
  retryable: true,
});

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
  constructor(deps: RunExecutorDeps) {
    this.#deps = deps;
  }

  /**
   * Runs the job to its end. A failure outside the agent takes the run up again after a backoff,
   * from its log, as a takeover would. While the database or Redis does not answer, that goes on
   * for `storeOutageLimitMs` (5 minutes) without the store, after which the run ends failed with
   * errorClass `unavailable`; other failures are retried `executionRetry.maxRetries` times and then
   * end the run with a retryable `worker_error`, so that no run is left without an end.
   */
  async execute(job: RunJob): Promise<RunJobOutcome> {
    const { shutdown, executionRetry, logger } = this.#deps;
    const outageLimitMs = this.#deps.storeOutageLimitMs ?? DEFAULT_STORE_OUTAGE_LIMIT_MS;
    let failures = 0;
    let outageRetries = 0;
    let outageSince: number | undefined;
    let claimedRun: Run | undefined;
    for (;;) {
      const progress: AttemptProgress = { claimed: false };
      let waitMs: number;
      try {
        return await this.#executeOnce(job, progress);
      } catch (error) {
        if (shutdown.aborted) return 'handed_over';
        claimedRun = progress.run ?? claimedRun;
        // Before any attempt claimed the run it is known by its id only.
        const log = claimedRun ? runLogger(logger, claimedRun) : logger.child({ runId: job.runId });
        // Events of the failed try still queued behind a failed commit are dropped; the next try
        // continues from the log.
        await this.#deps.writer.recover(job.runId);
        if (isStoreUnavailable(error)) {
          // A try that claimed the run found the store answering: this outage began after that.
          if (progress.claimed || outageSince === undefined) {
            outageSince = Date.now();
            outageRetries = 0;
          }
          if (Date.now() - outageSince >= outageLimitMs) {
            log.error({ err: error }, 'the store stayed unavailable; ending the run');
            return await this.#endWhenStoreReturns(job, storeUnavailable(outageLimitMs));
          }
          log.warn(
            { store: error.store, retry: outageRetries + 1 },
            'the run halted: its store does not answer; it is taken up again from its log',
          );
          waitMs = backoffDelayMs(STORE_OUTAGE_BACKOFF, Math.min(outageRetries++, 16));
        } else {
          if (failures >= executionRetry.maxRetries) {
            log.error({ err: error }, 'running the run failed; giving up');
            await this.#abandon(job, WORKER_ERROR);
            return 'done';
          }
          log.error({ err: error, retry: failures + 1 }, 'running the run failed; retrying');
          waitMs = backoffDelayMs(executionRetry, failures++);
        }
      }
      await sleep(waitMs, undefined, { signal: shutdown }).catch(() => undefined);
      if (shutdown.aborted) return 'handed_over';
    }
  }

  /**
   * The run has waited long enough for its store: it ends failed with errorClass `unavailable`, as
   * soon as that can be written (tried again every few seconds; a stop hands it over).
   */
  async #endWhenStoreReturns(job: RunJob, failure: RunFailure): Promise<RunJobOutcome> {
    const { shutdown } = this.#deps;
    for (let retry = 0; ; retry++) {
      try {
        await this.#abandon(job, failure);
        return 'done';
      } catch (error) {
        if (shutdown.aborted) return 'handed_over';
        if (!isStoreUnavailable(error)) throw error;
        await this.#deps.writer.recover(job.runId);
      }
      await sleep(backoffDelayMs(STORE_OUTAGE_BACKOFF, Math.min(retry, 16)), undefined, {
        signal: shutdown,
      }).catch(() => undefined);
      if (shutdown.aborted) return 'handed_over';
    }
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
    this.#finished(run, await endWithError(emitter, run, failure), runLogger(this.#deps.logger, run));
    await this.#deps.dispatcher.slotFreed(run.workspaceId);
  }

  /**
   * A run whose terminal event is written: counted (its status and time since creation), its span
   * reported, and logged in its one end line. Called only by the attempt whose write of the terminal
   * event landed, so once per run whatever the attempts and takeovers before it.
   */
  #finished(run: Run, terminal: TerminalEvent, log: Logger): void {
    this.#tracing.runEnded(run, terminal.outcome);
    const { status } = terminal.outcome;
    if (status !== 'succeeded' && status !== 'failed' && status !== 'cancelled') return;
    const durationMs = Math.max(0, Date.now() - Date.parse(run.createdAt));
    this.#metrics.runFinished(run.workspaceId, status, durationMs / 1000);
    logRunFinished(log, status, terminal, durationMs);
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
      if (signal.kind === 'cancel' && !abort.signal.aborted) abort.abort(new RunCancelled());
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
        this.#finished(
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
          this.#finished(run, terminal, log);
          return 'done';
        }
        await emitter.end(terminal, session);
      }
      this.#finished(run, terminal, log);
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

async function endsWithTerminalEvent(events: EventStore, runId: string, lastSeq: number): Promise<boolean> {
  if (lastSeq === 0) return false;
  const [last] = await events.readAfter(runId, lastSeq - 1, 1);
  return last !== undefined && isTerminalEventType(last.type);
}

/**
 * A session run's end: a success appends its turns; anything else only frees the session. A
 * plan-only run's result (it carries a plan) appends nothing: the plan is no turn of the conversation.
 */
export function sessionEnd(
  run: Run,
  terminal: TerminalEvent,
  retained: readonly RetainedToolPair[],
): SessionRunEnd | undefined {
  if (!run.sessionId) return undefined;
  const appends =
    terminal.type === 'result' && terminal.data.subtype === 'success' && terminal.data.plan === undefined;
  return {
    sessionId: run.sessionId,
    runId: run.id,
    append: appends ? sessionTurnItems(run.spec, retained, terminal.outcome.finalText ?? '') : null,
  };
}

/**
 * Ends a run that cannot be carried on (a log that cannot be continued, storage failing for good)
 * with an error the client can retry, after its last durable event.
 */
async function endWithError(emitter: RunEmitter, run: Run, failure: RunFailure): Promise<TerminalEvent> {
  const terminal = errorBeforeAnyTurn(failure, run.spec);
  await emitter.end(terminal, sessionEnd(run, terminal, []));
  return terminal;
}

function secondsSince(isoTime: string): number {
  return Math.max(0, (Date.now() - Date.parse(isoTime)) / 1000);
}
