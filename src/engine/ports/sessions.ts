import type { SessionItem } from '../../domain/session-history.ts';
import type {
  Session,
  SessionCut,
  SessionMessage,
  SessionSpec,
  SessionStatus,
} from '../../domain/session.ts';

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
