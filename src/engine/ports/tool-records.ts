import type { StoredFileMetadata } from '../../domain/run-events.ts';
import type { ClientToolResult, ToolCallRecord } from '../../domain/tool-call.ts';
import type { ToolKind } from '../../domain/tool-ref.ts';

/**
 * What tool calls leave in storage: client calls awaiting an answer, server-resolved calls and their
 * outcomes, the files they returned, and plugins' own records.
 */

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
