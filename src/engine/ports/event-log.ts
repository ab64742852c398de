import type { RunOutcome } from '../../domain/run.ts';
import type { RunEventType, SerializedRunEvent } from '../../domain/run-events.ts';
import type { SessionRunEnd } from './sessions.ts';

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

/** Reads of the event log by event type, for views that show where a run's controls stand. */
export interface RunEventLookup {
  /** The run's latest event of one of `types`, if any. */
  latestOf(runId: string, types: readonly RunEventType[]): Promise<SerializedRunEvent | undefined>;
}
