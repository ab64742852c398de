import type { SerializedRunEvent } from '../../domain/run-events.ts';

/** A durable event as published to live subscribers, with its SSE frame serialized once for all of them. */
export interface PublishedEvent extends SerializedRunEvent {
  frame: string;
}

/** Live events of runs, published only after they are durable. */
export interface RunEventBus {
  publish(runId: string, events: readonly PublishedEvent[]): void;
  /** Resolves, with the unsubscribe function, once the subscription is live. */
  subscribe(runId: string, listener: (event: PublishedEvent) => void): Promise<() => void>;
}

/** Control messages to the worker that owns a run; the stored state they point at is the truth. */
export type RunSignal = { kind: 'cancel' } | { kind: 'tool_result'; toolUseId: string };

export interface RunSignals {
  send(runId: string, signal: RunSignal): Promise<void>;
  /** Resolves, with the unsubscribe function, once signals for the run are being received. */
  listen(runId: string, listener: (signal: RunSignal) => void): Promise<() => void>;
}

export interface RunJob {
  runId: string;
}

/** `handed_over`: the process is stopping and the run is not finished; the queue gives it to another worker. */
export type RunJobOutcome = 'done' | 'handed_over';

/** Dispatches runs to workers with bounded concurrency. */
export interface RunQueue {
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
