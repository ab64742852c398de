import type { RunRequest } from './run-spec.ts';
import type { AttachmentMetadata } from './session-history.ts';

export type SessionStatus = 'active' | 'ended';

/** The agent spec a session was created with: its defaults for every message run. */
export type SessionSpec = Omit<RunRequest, 'prompt' | 'messages'>;

/** What a message to a busy session does (extensions §6); `reject` is the default. */
export const IF_BUSY_STRATEGIES = ['reject', 'enqueue', 'interrupt', 'rollback'] as const;
export type IfBusy = (typeof IF_BUSY_STRATEGIES)[number];

/** How a later message cut a session run short: what the run's end leaves in the history. */
export type SessionCut = Extract<IfBusy, 'interrupt' | 'rollback'>;

/**
 * What a session message may carry: the input, refreshed tool definitions, one-run overrides, and
 * what to do if the session is busy.
 */
export type SessionMessageRequest = SessionMessageInput & { ifBusy?: IfBusy };

/** The part of a session message that becomes the run's request. */
export type SessionMessageInput = Pick<
  RunRequest,
  | 'prompt'
  | 'messages'
  | 'tools'
  | 'reasoningLevel'
  | 'outputSchema'
  | 'loopDetection'
  | 'toolBudgets'
  | 'supervisor'
  | 'plan'
  | 'metadata'
  | 'localToolTimeoutMs'
>;

export interface Session {
  id: string;
  workspaceId: string;
  apiKeyId: string | null;
  status: SessionStatus;
  spec: SessionSpec;
  metadata: Record<string, string>;
  summary: string;
  /** User, assistant and system messages (retained tool pairs are not messages). */
  messageCount: number;
  activeRunId: string | null;
  createdAt: string;
  lastInteractionAt: string;
}

/** A replayable message with its stable position in the conversation. */
export interface SessionMessage {
  seq: number;
  role: 'user' | 'assistant' | 'system';
  content: string;
  attachments: AttachmentMetadata[] | null;
}
