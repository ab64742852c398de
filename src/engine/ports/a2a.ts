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
