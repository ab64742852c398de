/** A session's stored conversation: the items message runs append and later runs replay. */

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

export const RETAINED_RESULT_MAX_BYTES = 8 * 1024;
