export type ToolCallStatus = 'pending' | 'answered' | 'timed_out';

export interface ToolResultFile {
  filename: string;
  mimeType: string;
  /** Base64, as posted. */
  data: string;
}

/** What the client posted for a call: exactly one of `result` or `error`, and files only with a result. */
export type ClientToolResult = { result: string; files: ToolResultFile[] } | { error: string };

export interface ToolCallRecord {
  runId: string;
  toolUseId: string;
  name: string;
  kind: string;
  status: ToolCallStatus;
  result: ClientToolResult | null;
  createdAt: string;
  answeredAt: string | null;
}
