import type { RunRequest } from './run-spec.ts';
import type { AttachmentMetadata } from './session-history.ts';

export type SessionStatus = 'active' | 'ended';

/** The agent spec a session was created with: its defaults for every message run. */
export type SessionSpec = Omit<RunRequest, 'prompt' | 'messages'>;

/** What a session message may carry: the input, refreshed tool definitions and one-run overrides. */
export type SessionMessageRequest = Pick<
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
