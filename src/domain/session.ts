import type { RunRequest } from './run-spec.ts';

export type SessionStatus = 'active' | 'ended';

/** The agent spec a session was created with: its defaults for every message run. */
export type SessionSpec = Omit<RunRequest, 'prompt' | 'messages'>;

export type AttachmentMetadata =
  | { type: 'input_file'; mimeType: string; filename: string; size: number }
  | { type: 'input_file_url'; url: string; mimeType?: string; filename?: string };

/** A retained local tool result, replayed on later turns as a tool-use/tool-result pair. */
export interface RetainedToolPair {
  toolUseId: string;
  name: string;
  args: Record<string, unknown>;
  /** Text only, capped at about 8 KB. */
  result: string;
  isError: boolean;
}

/** One item of a session's conversation, in order. */
export type SessionItem =
  | { role: 'user' | 'assistant' | 'system'; content: string; attachments?: AttachmentMetadata[] }
  | { role: 'tool_pair'; tool: RetainedToolPair };

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

export const RETAINED_RESULT_MAX_BYTES = 8 * 1024;
