import type { RunOutcome, SerializedRunEvent } from '../domain/run.ts';
import type { SessionItem } from '../domain/session.ts';
import type { ModelMessage } from 'ai';
import type { ResolvedModel } from '../domain/model.ts';
import type { SdkReasoning } from '../providers/reasoning.ts';
import type { ModelToolDefinition } from '../tools/run-tools.ts';
import type { CompletedTurn, ModelTurnOutput } from './model-turn.ts';

/** How a session-scoped run's end changes its session: append its turns (on success) or just free the session. */
export interface SessionRunEnd {
  sessionId: string;
  runId: string;
  append: SessionItem[] | null;
}

/** Events of one run to append, with the run's outcome when the batch holds its terminal event. */
export interface EventBatch {
  runId: string;
  events: readonly SerializedRunEvent[];
  outcome?: RunOutcome;
  /** Written in the same transaction as the terminal event. */
  session?: SessionRunEnd;
  /** The writer's attempt: the batch is refused if another attempt has taken the run since. */
  attempt?: number;
}

/** The durable event log. */
export interface EventStore {
  /** Commits the batches in one transaction, except those fenced out; returns the fenced runs. */
  append(batches: readonly EventBatch[]): Promise<ReadonlySet<string>>;
  readAfter(runId: string, afterSeq: number, limit?: number): Promise<SerializedRunEvent[]>;
  lastSeq(runId: string): Promise<number>;
}

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

/** What one model call needs, as plain data, so that it can run on a model thread. */
export interface ModelCall {
  model: ResolvedModel;
  instructions: string;
  messages: ModelMessage[];
  tools?: readonly ModelToolDefinition[];
  toolChoice?: 'auto' | 'none';
  providerOptions?: Record<string, Record<string, unknown>>;
  /** The SDK's portable reasoning setting, resolved per model; explicit provider options win. */
  reasoning?: SdkReasoning;
  /** Forward thought parts (only when a reasoning level above 0 was requested). */
  streamThinking: boolean;
}

/** Runs model calls: on the event loop's thread, or on model threads beside it. */
export interface ModelCaller {
  /**
   * Streams one model call: deltas go to `output` as they arrive; settles with the completed
   * turn, throws `ModelTurnError` when the provider fails, or the abort reason once `signal` aborts.
   */
  call(call: ModelCall, signal: AbortSignal, output: ModelTurnOutput): Promise<CompletedTurn>;
  close(): Promise<void>;
}
