import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { isStoreUnavailable } from '../../domain/errors.ts';
import type { Run } from '../../domain/run.ts';
import type { EventLogWriter } from '../log/event-log-writer.ts';
import { backoffDelayMs, type RetryPolicy } from '../loop/retry-policy.ts';
import type { RunFailure } from '../loop/terminal-events.ts';
import type { RunJob, RunJobOutcome } from '../ports.ts';
import { runLogger } from './run-logger.ts';

/** A run that failed outside the agent is taken up again, like a takeover, for about a minute and a half. */
export const DEFAULT_EXECUTION_RETRY: RetryPolicy = { maxRetries: 7, baseDelayMs: 1000, maxDelayMs: 30_000 };

/** The spec's bound: a run may end for want of its store only after 5 minutes without it. */
export const DEFAULT_STORE_OUTAGE_LIMIT_MS = 5 * 60_000;

/**
 * While the store does not answer, a halted run is tried again after these waits (jittered), so a
 * run goes on within a few seconds of the store's return; `maxRetries` is unused (the limit is time).
 */
const STORE_OUTAGE_BACKOFF: RetryPolicy = { maxRetries: 0, baseDelayMs: 500, maxDelayMs: 5000 };

/** The end of a run the worker could not carry on (retryable: the client may create it again). */
export const WORKER_ERROR: RunFailure = {
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

/** Whether an attempt got as far as claiming the run (the store answered then), and the run it claimed. */
export interface AttemptProgress {
  claimed: boolean;
  run?: Run;
}

/** What the retries drive: one attempt at the run, and the run's end when it cannot be carried on. */
export interface RetriedRun {
  /** Executes the run once; records in `progress` how far it got before a failure. */
  attempt(progress: AttemptProgress): Promise<RunJobOutcome>;
  /** Ends the run failed with `failure` after its last durable event. */
  abandon(failure: RunFailure): Promise<void>;
}

export interface ExecutionRetryOptions {
  /** Aborted when the process stops: a run waiting for its next try is handed over. */
  shutdown: AbortSignal;
  /** Retries of a run whose execution failed outside the agent (a refused write, a bug), before giving up. */
  executionRetry: RetryPolicy;
  /** How long a run waits for an unreachable database or Redis before it ends failed. */
  storeOutageLimitMs: number;
  /** Drops the events of a failed try still queued behind a failed commit. */
  writer: Pick<EventLogWriter, 'recover'>;
  logger: Logger;
}

/**
 * Runs the job to its end. A failure outside the agent takes the run up again after a backoff,
 * from its log, as a takeover would. While the database or Redis does not answer, that goes on
 * for `storeOutageLimitMs` (5 minutes) without the store, after which the run ends failed with
 * errorClass `unavailable`; other failures are retried `executionRetry.maxRetries` times and then
 * end the run with a retryable `worker_error`, so that no run is left without an end.
 */
export async function executeWithRetries(
  job: RunJob,
  run: RetriedRun,
  options: ExecutionRetryOptions,
): Promise<RunJobOutcome> {
  const { shutdown, executionRetry, storeOutageLimitMs: outageLimitMs, logger } = options;
  let failures = 0;
  let outageRetries = 0;
  let outageSince: number | undefined;
  let claimedRun: Run | undefined;
  for (;;) {
    const progress: AttemptProgress = { claimed: false };
    let waitMs: number;
    try {
      return await run.attempt(progress);
    } catch (error) {
      if (shutdown.aborted) return 'handed_over';
      claimedRun = progress.run ?? claimedRun;
      // Before any attempt claimed the run it is known by its id only.
      const log = claimedRun ? runLogger(logger, claimedRun) : logger.child({ runId: job.runId });
      // Events of the failed try still queued behind a failed commit are dropped; the next try
      // continues from the log.
      await options.writer.recover(job.runId);
      if (isStoreUnavailable(error)) {
        // A try that claimed the run found the store answering: this outage began after that.
        if (progress.claimed || outageSince === undefined) {
          outageSince = Date.now();
          outageRetries = 0;
        }
        if (Date.now() - outageSince >= outageLimitMs) {
          log.error({ err: error }, 'the store stayed unavailable; ending the run');
          return await endWhenStoreReturns(job, run, storeUnavailable(outageLimitMs), options);
        }
        log.warn(
          { store: error.store, retry: outageRetries + 1 },
          'the run halted: its store does not answer; it is taken up again from its log',
        );
        waitMs = backoffDelayMs(STORE_OUTAGE_BACKOFF, Math.min(outageRetries++, 16));
      } else {
        if (failures >= executionRetry.maxRetries) {
          log.error({ err: error }, 'running the run failed; giving up');
          await run.abandon(WORKER_ERROR);
          return 'done';
        }
        log.error({ err: error, retry: failures + 1 }, 'running the run failed; retrying');
        waitMs = backoffDelayMs(executionRetry, failures++);
      }
    }
    await pause(waitMs, shutdown);
    if (shutdown.aborted) return 'handed_over';
  }
}

/**
 * The run has waited long enough for its store: it ends failed with errorClass `unavailable`, as
 * soon as that can be written (tried again every few seconds; a stop hands it over).
 */
async function endWhenStoreReturns(
  job: RunJob,
  run: RetriedRun,
  failure: RunFailure,
  options: ExecutionRetryOptions,
): Promise<RunJobOutcome> {
  const { shutdown } = options;
  for (let retry = 0; ; retry++) {
    try {
      await run.abandon(failure);
      return 'done';
    } catch (error) {
      if (shutdown.aborted) return 'handed_over';
      if (!isStoreUnavailable(error)) throw error;
      await options.writer.recover(job.runId);
    }
    await pause(backoffDelayMs(STORE_OUTAGE_BACKOFF, Math.min(retry, 16)), shutdown);
    if (shutdown.aborted) return 'handed_over';
  }
}

/** Waits `ms`, or less when the process stops. */
async function pause(ms: number, shutdown: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal: shutdown }).catch(() => undefined);
}
