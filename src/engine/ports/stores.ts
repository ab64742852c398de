import type { Agent } from '../../domain/agent.ts';
import type { ApiKey } from '../../domain/api-key.ts';
import type { Workspace } from '../../domain/workspace.ts';
import type { Offering, WorkspaceProvider } from '../../domain/offering.ts';
import type { Run, RunListKey, RunOutcome, RunState, RunStatus, RunSummary } from '../../domain/run.ts';
import type { RunSpec } from '../../domain/run-spec.ts';
import type { RunTraceContext } from '../../domain/trace-context.ts';
import type { RunEventType, SerializedRunEvent } from '../../domain/run-events.ts';
import type { SessionItem } from '../../domain/session-history.ts';
import type {
  Session,
  SessionCut,
  SessionMessage,
  SessionSpec,
  SessionStatus,
} from '../../domain/session.ts';
import type { ClientToolResult, ToolCallRecord } from '../../domain/tool-call.ts';
import type { ToolKind } from '../../domain/tool-ref.ts';
import type { StoredFileMetadata } from '../../domain/run-events.ts';
import type { WorkspaceTool } from '../../domain/workspace-tool.ts';

/** What storage must offer the engine. Each is implemented by one repository in `storage/`. */

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

export interface NewToolCall {
  toolUseId: string;
  name: string;
  kind: ToolKind;
}

/** Calls awaiting a client's answer: a row per call, answered at most once. */
export interface ToolCallStore {
  /**
   * Stores the calls as pending; the run shows `waiting` from then (the same write). With `attempt`,
   * only while that attempt owns the run: false when a newer one has taken it over (nothing written).
   */
  insertPending(runId: string, calls: readonly NewToolCall[], attempt?: number): Promise<boolean>;
  /** The run shows `running` again if it was `waiting` and none of its calls is pending any more. */
  endWaiting(runId: string): Promise<void>;
  /**
   * Stores the answer of a pending call and returns the call answered; undefined when the call is
   * unknown or no longer pending (one answer per call: only one caller ever gets the record).
   */
  answer(runId: string, toolUseId: string, result: ClientToolResult): Promise<ToolCallRecord | undefined>;
  /** Marks the calls still pending as timed out; returns the calls this call marked (each once ever). */
  expire(runId: string, toolUseIds: readonly string[]): Promise<ToolCallRecord[]>;
  find(runId: string, toolUseIds: readonly string[]): Promise<ToolCallRecord[]>;
  findOne(runId: string, toolUseId: string): Promise<ToolCallRecord | undefined>;
  /** The calls still awaiting an answer, oldest first. */
  findPending(runId: string): Promise<ToolCallRecord[]>;
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

export interface AgentStore {
  findById(workspaceId: string, id: string): Promise<Agent | undefined>;
  findBySlug(workspaceId: string, slug: string): Promise<Agent | undefined>;
}

/**
 * Which session carries each A2A conversation of a hosted agent: one row per (workspace, agent,
 * contextId), unique, so every replica finds the same session and concurrent first messages bind one.
 */
export interface A2aContextStore {
  /** The session the context is bound to, if it is. */
  find(workspaceId: string, agentId: string, contextId: string): Promise<string | undefined>;
  /** Binds the context to `sessionId` unless it is bound already; returns the session it is bound to. */
  bind(workspaceId: string, agentId: string, contextId: string, sessionId: string): Promise<string>;
}

/** A task of a hosted agent's streamed message, as the A2A endpoint stores it. */
export interface StoredA2aTask {
  workspaceId: string;
  agentId: string;
  taskId: string;
  contextId: string;
  /** The run answering the task, once it started. */
  runId: string | undefined;
  /** The task as A2A 1.0 JSON (opaque here). */
  task: Record<string, unknown>;
  updatedAt: string;
}

/**
 * Tasks of hosted agents' streamed messages, readable from every replica: one row per (workspace,
 * agent, task id), replaced by each save.
 */
export interface A2aTaskStore {
  save(task: StoredA2aTask): Promise<void>;
  /** The task, unless it was last changed before `updatedSince` (an ISO timestamp). */
  find(
    workspaceId: string,
    agentId: string,
    taskId: string,
    updatedSince: string,
  ): Promise<StoredA2aTask | undefined>;
  /** Forgets tasks last changed before `cutoff`; returns how many. */
  deleteUpdatedBefore(cutoff: string): Promise<number>;
}

/**
 * How a session-scoped run's end changes its session: append its turns (on success) or just free the
 * session (and hand it to the next held run). `kept`: what stays if a later message interrupted the
 * run (its user turns and retained tool results; the storage adds the turns it completed).
 */
export interface SessionRunEnd {
  sessionId: string;
  runId: string;
  append: SessionItem[] | null;
  kept: SessionItem[];
}

export interface NewSession {
  /** A session id reserved beforehand (a new one otherwise). */
  id?: string;
  workspaceId: string;
  apiKeyId: string | null;
  spec: SessionSpec;
  metadata: Record<string, string>;
}

export interface SessionListQuery {
  metadata: ReadonlyArray<{ key: string; value: string }>;
  status?: SessionStatus;
  limit: number;
  offset: number;
}

export interface SessionStore {
  create(input: NewSession): Promise<Session>;
  findById(workspaceId: string, id: string): Promise<Session | undefined>;
  list(workspaceId: string, query: SessionListQuery): Promise<{ total: number; sessions: Session[] }>;
  /** Makes `runId` the session's one run in flight; false when another run holds it or it has ended. */
  claimForRun(sessionId: string, runId: string): Promise<boolean>;
  releaseRun(sessionId: string, runId: string): Promise<void>;
  /** Hands the session, if free, to its oldest held run; returns that run's id. */
  promoteHeldRun(sessionId: string): Promise<string | undefined>;
  /**
   * Marks the run holding the session as cut by a later message (`runId`, held) and requests the
   * cancel of the runs held before it; returns the runs to cancel, the holder first.
   */
  preempt(sessionId: string, runId: string, cut: SessionCut): Promise<string[]>;
  /** The runs waiting in the session's line, oldest first. */
  heldRuns(sessionId: string): Promise<string[]>;
  end(workspaceId: string, id: string): Promise<{ activeRunId: string | null } | undefined>;
  historyLength(sessionId: string): Promise<number>;
  /** The first `items` items of the session's conversation (all when omitted). */
  history(sessionId: string, items?: number): Promise<SessionItem[]>;
  messages(sessionId: string, last?: number): Promise<SessionMessage[]>;
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

/** Reads of the event log by event type, for views that show where a run's controls stand. */
export interface RunEventLookup {
  /** The run's latest event of one of `types`, if any. */
  latestOf(runId: string, types: readonly RunEventType[]): Promise<SerializedRunEvent | undefined>;
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

/** The workspace API keys a request's credential is checked against (stored as hashes). */
export interface ApiKeyStore {
  /** The key with this hash and its workspace, revoked or not: the caller decides what a revoked key means. */
  findByHash(keyHash: string): Promise<{ apiKey: ApiKey; workspace: Workspace } | undefined>;
  touchLastUsed(id: string, at: string): Promise<void>;
}

/** Where the model catalog reads the platform's offerings. */
export interface OfferingSource {
  list(): Promise<Offering[]>;
}

/** Where the model catalog reads a workspace's own providers. */
export interface WorkspaceProviderSource {
  listByWorkspace(workspaceId: string): Promise<WorkspaceProvider[]>;
}

/** Opens provider keys sealed at rest. */
export interface SecretOpener {
  open(sealed: string): string;
}

/** What a server-resolved call left: recorded when it finished, before its `tool_result` goes out. */
export interface ServerCallOutcome {
  ok: boolean;
  /** The whole result the model received. */
  text: string;
  /** The files it returned, as announced on `tool_files`. */
  files: StoredFileMetadata[];
}

export interface ServerCallRecord {
  toolUseId: string;
  name: string;
  /** Null while the call runs (or if its worker died before it finished: the outcome is unknown). */
  outcome: ServerCallOutcome | null;
}

/** Server-resolved calls: a row before the call executes and its outcome after, so none runs twice. */
export interface ServerCallStore {
  /** Records calls about to execute; a call already recorded is left as it is. */
  begin(
    runId: string,
    calls: ReadonlyArray<{ toolUseId: string; name: string; kind: ToolKind }>,
  ): Promise<void>;
  finish(runId: string, toolUseId: string, outcome: ServerCallOutcome): Promise<void>;
  find(runId: string, toolUseIds: readonly string[]): Promise<ServerCallRecord[]>;
}

export interface StoredFileContent {
  filename: string;
  mimeType: string;
  data: Uint8Array;
}

/** Files server-resolved tools returned, kept by storage key (never put on the stream). */
export interface FileStore {
  /** Stores the bytes; returns the key `tool_files` names. */
  put(workspaceId: string, runId: string, file: StoredFileContent): Promise<string>;
  get(workspaceId: string, storageKey: string): Promise<StoredFileContent | undefined>;
}

/** A plugin's records, scoped to a workspace, an agent and the plugin's own namespace. */
export interface PluginRecord {
  key: string;
  value: string;
  updatedAt: string;
}

export interface PluginRecordScope {
  workspaceId: string;
  agentId: string;
  namespace: string;
}

export interface PluginRecordStore {
  put(scope: PluginRecordScope, key: string, value: string): Promise<void>;
  get(scope: PluginRecordScope, key: string): Promise<PluginRecord | undefined>;
  /** Newest first. */
  list(scope: PluginRecordScope, limit: number): Promise<PluginRecord[]>;
  delete(scope: PluginRecordScope, key: string): Promise<boolean>;
}

/** The workspace Tool rows `svc` refs name. */
export interface WorkspaceToolStore {
  findById(workspaceId: string, id: string): Promise<WorkspaceTool | undefined>;
}
