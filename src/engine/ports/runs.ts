import type { Run, RunListKey, RunState, RunStatus, RunSummary } from '../../domain/run.ts';
import type { RunSpec } from '../../domain/run-spec.ts';
import type { RunTraceContext } from '../../domain/trace-context.ts';

/**
 * What storage must offer the engine of runs: the run rows, their checkpoints and fair dispatch.
 * Each is implemented by one repository in `storage/`.
 */

export interface NewRun {
  id?: string;
  workspaceId: string;
  agentId: string | null;
  sessionId: string | null;
  apiKeyId: string | null;
  spec: RunSpec;
  metadata: Record<string, string>;
  /** The trace the run continues (see `RunTraceContext`). */
  traceContext?: RunTraceContext;
  /** A message run accepted while its session is busy: it waits for the session, then for a slot. */
  heldBySession?: boolean;
}

export interface RunStore {
  /** Stores the run waiting for a slot (or, `heldBySession`, for its session). */
  create(input: NewRun): Promise<Run>;
  /**
   * Stores the run already admitted when its workspace has a free slot and no run waits for one (the
   * same rule as `DispatchStore.admit`, in the insert itself); else waiting, like `create`.
   * `admission` is the admitted run's job; undefined when it waits.
   */
  createAdmitting(input: Omit<NewRun, 'heldBySession'>): Promise<{ run: Run; admission: number | undefined }>;
  findById(workspaceId: string, id: string): Promise<Run | undefined>;
  /** Status only: no spec, metadata or usage to read and parse. */
  findState(workspaceId: string, id: string): Promise<RunState | undefined>;
  /**
   * Takes an admitted run for a new attempt (the returned number fences every write of older attempts
   * out); with `admission`, only while that admission is the run's current one (a job of an earlier
   * admission finds nothing to do). Undefined when the run has ended or is not admitted.
   */
  claimAttempt(id: string, admission?: number): Promise<{ run: Run; attempt: number } | undefined>;
  /** Records a cancellation request (the stored flag); the first request's time is kept. */
  requestCancel(id: string): Promise<void>;
  /** A page of the workspace's runs, newest first (by `createdAt`, then `id`). */
  list(workspaceId: string, query: RunListQuery): Promise<RunSummary[]>;
}

/** The runs list's filters (each given one AND-combined) and its keyset page. */
export interface RunListQuery {
  /** Any of these statuses (every status when empty). */
  statuses: readonly RunStatus[];
  agentId?: string;
  sessionId?: string;
  metadata: ReadonlyArray<{ key: string; value: string }>;
  /** Only runs of these agents: a credential's non-empty allowlist (every run when absent). */
  agentScope?: readonly string[];
  limit: number;
  /** The last run of the previous page: this page starts below it. */
  after?: RunListKey;
}

export interface StoredCheckpoint<T> {
  /** The last seq of the run's log when the checkpoint was taken. */
  seq: number;
  state: T;
}

/** One checkpoint per run, replaced at each tool-round boundary. */
export interface CheckpointStore {
  /** Replaces the checkpoint; with `attempt`, only while that attempt owns the run (false: fenced out). */
  save(runId: string, seq: number, state: unknown, attempt?: number): Promise<boolean>;
  load<T>(runId: string): Promise<StoredCheckpoint<T> | undefined>;
}

/** A run admitted to execute, with the admission that queued it (the job it belongs to). */
export interface AdmittedRun {
  runId: string;
  admission: number;
}

/**
 * Fair dispatch: where each unfinished run stands (waiting for a slot of its
 * workspace, admitted to a worker, or parked on a client tool), kept in
 * storage so that every replica sees the same slots.
 */
export interface DispatchStore {
  /**
   * Admits the workspace's waiting runs, oldest first, while fewer than its `maxConcurrentRuns` are
   * admitted. Serialized per workspace across replicas; returns the runs admitted.
   */
  admit(workspaceId: string): Promise<AdmittedRun[]>;
  /** A cancelled run still waiting for a slot, admitted regardless of the limit (it only ends). */
  admitCancelled(runId: string): Promise<AdmittedRun | undefined>;
  /** Whether the workspace has runs waiting for a slot. */
  hasWaiting(workspaceId: string): Promise<boolean>;
  /**
   * The worker of `attempt` frees the run's slot: it waits in storage until an answer or `wakeAt`.
   * False when that attempt no longer holds the run.
   */
  park(runId: string, attempt: number, wakeAt: string): Promise<boolean>;
  /**
   * A parked run goes back to its workspace's waiting line; with `dueBy`, only if its wake time is
   * at or before it. Returns the run's workspace when this call woke it.
   */
  wake(runId: string, dueBy?: string): Promise<string | undefined>;
  /** Parked runs whose wake time is at or before `dueBy`, soonest first. */
  dueParked(dueBy: string, limit: number): Promise<Array<{ runId: string; wakeAt: string }>>;
  /** Parked runs with a call answered since they parked (the answer's wake did not get through). */
  answeredParked(limit: number): Promise<string[]>;
  /** Workspaces that have runs waiting for a slot. */
  workspacesWithWaiting(limit: number): Promise<string[]>;
  /** Admitted runs, oldest first: each needs a job (queued or running). */
  admitted(limit: number): Promise<AdmittedRun[]>;
  /**
   * Runs held for a busy session that a crash left behind: those of ended sessions go to their
   * workspace's line cancelled; a free session is handed to its oldest (up to `limit` sessions).
   * Returns how many runs moved to their workspace's line.
   */
  releaseStrandedSessionRuns(limit: number): Promise<number>;
}
