/** One file of a tool result, as the tool-results route takes it (`data` is base64 without a prefix). */
export interface ToolResultFile {
  filename: string;
  mimeType: string;
  data: string;
}

/** What is posted for one call: exactly one of `result` (with optional files) or `error`. */
export type ToolAnswer = { result: string; files?: ToolResultFile[] } | { error: string };

/** The service's caps on the two fields (UTF-8 bytes). */
export const RESULT_MAX_BYTES = 2 * 1024 * 1024;
export const ERROR_MAX_BYTES = 8 * 1024;

const TRUNCATION_MARK = '… [truncated]';

/** A handler's return value that carries files along with the result text (see `withFiles`). */
export class ToolResultWithFiles {
  readonly result: string;
  readonly files: readonly ToolResultFile[];
  constructor(result: string, files: readonly ToolResultFile[]) {
    this.result = result;
    this.files = files;
  }
}

/** Return this from a handler to attach files (allowed attachment MIME types, at most 20, 5 MB in total). */
export function withFiles(result: string, files: readonly ToolResultFile[]): ToolResultWithFiles {
  return new ToolResultWithFiles(result, files);
}

/**
 * The answer for a handler's return value: a string as it is, `withFiles(...)` as text plus files,
 * `undefined` as an empty result, anything else as JSON (the route takes text only).
 */
export function answerOfValue(value: unknown): ToolAnswer {
  if (value instanceof ToolResultWithFiles) {
    const result = capUtf8(value.result, RESULT_MAX_BYTES);
    return value.files.length === 0 ? { result } : { result, files: [...value.files] };
  }
  if (typeof value === 'string') return { result: capUtf8(value, RESULT_MAX_BYTES) };
  if (value === undefined) return { result: '' };
  return { result: capUtf8(JSON.stringify(value) ?? String(value), RESULT_MAX_BYTES) };
}

/** The answer for a thrown value: its message, cut to the 8 KB the route accepts. */
export function answerOfError(error: unknown): ToolAnswer {
  return { error: capUtf8(messageOf(error), ERROR_MAX_BYTES) };
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message === '' ? error.name : error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** `text` cut to at most `maxBytes` UTF-8 bytes (a mark says it was cut), never inside a character. */
export function capUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.byteLength <= maxBytes) return text;
  const room = maxBytes - Buffer.byteLength(TRUNCATION_MARK, 'utf8');
  let end = room;
  // Step back over UTF-8 continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8') + TRUNCATION_MARK;
}
