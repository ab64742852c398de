import type { SerializedRunEvent } from '../../domain/run-events.ts';

/** A durable event as published to live subscribers, with its SSE frame serialized once for all of them. */
export interface PublishedEvent extends SerializedRunEvent {
  frame: string;
}

/** Live events of runs, published only after they are durable. */
export interface RunEventBus {
  publish(runId: string, events: readonly PublishedEvent[]): void;
  /**
   * Resolves, with the unsubscribe function, once the subscription is live (every event published
   * from then on reaches `listener`); while the bus is unreachable that waits for it to come back.
   * A bus that can lose live delivery later tells `onLiveness(false)` when it does (events may then
   * be missed) and `onLiveness(true)` once it is live again; the log holds what was missed.
   */
  subscribe(
    runId: string,
    listener: (event: PublishedEvent) => void,
    onLiveness?: (live: boolean) => void,
  ): Promise<() => void>;
}

/**
 * Control messages to the worker that owns a run; the stored state they point at is the truth.
 * `cut`: a later session message interrupts the run (extensions §6): the turn it is streaming is cut
 * off now instead of finishing.
 */
export type RunSignal = { kind: 'cancel'; cut?: boolean };

export interface RunSignals {
  send(runId: string, signal: RunSignal): Promise<void>;
  /**
   * Resolves, with the unsubscribe function, once signals for the run are being received, or, with
   * the bus unreachable, after a short wait (signals arrive once it is back; the stored state they
   * point at is read periodically meanwhile).
   */
  listen(runId: string, listener: (signal: RunSignal) => void): Promise<() => void>;
}

/** One admission of a run: the job a worker executes until the run ends or parks. */
export interface RunJob {
  runId: string;
  /** Absent on jobs queued before admissions were counted. */
  admission?: number;
}

/**
 * `done`: the run ended, or parked on a client tool (it is admitted again when woken), or another
 * worker holds it. `handed_over`: the process is stopping and the run is not finished; the queue
 * gives it to another worker.
 */
export type RunJobOutcome = 'done' | 'handed_over';

/** Dispatches admitted runs to workers with bounded concurrency. */
export interface RunQueue {
  /** Idempotent per job (run and admission). */
  enqueue(job: RunJob): Promise<void>;
  /** Starts consuming jobs; `handle` runs each job once and settles when the run has ended or been handed over. */
  consume(handle: (job: RunJob) => Promise<RunJobOutcome>): void;
  /** Stops taking jobs and waits for the ones in progress. */
  close(): Promise<void>;
}

export interface RateDecision {
  allowed: boolean;
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

/** Shared counters for rate limits: nothing a replica holds in memory decides another replica's answer. */
export interface RateCounters {
  consume(key: string, limit: number): Promise<RateDecision>;
}
