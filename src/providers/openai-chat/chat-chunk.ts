import { StreamProviderError } from 'ai';

/**
 * One `chat.completion.chunk` as read off the stream: only the fields the turn uses. Chunks are
 * checked with plain type tests, field by field as the AI SDK's chunk schema does, so a chunk the
 * SDK path would reject is rejected here too, without a schema library on every chunk.
 */
export interface ChatChunk {
  choices: ChatChoice[];
  usage?: ChatUsage | null;
  error?: unknown;
}

export interface ChatChoice {
  delta?: ChatDelta | null;
  finish_reason?: string | null;
}

export interface ChatDelta {
  content?: string | ContentPartOnWire[] | null;
  refusal?: unknown;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: ToolCallDelta[] | null;
}

export type ContentPartOnWire = { type: string } & Record<string, unknown>;

export interface ToolCallDelta {
  index?: number | null;
  id?: string | null;
  function: { name?: string | null; arguments?: string | null };
  extra_content?: { google?: { thought_signature?: string | null } | null } | null;
}

export interface ChatUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** An error event of the stream (`{ "error": { "message", … } }`). */
export interface ChatErrorChunk {
  error: { message: string; type?: string | null; param?: unknown; code?: string | number | null };
}

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const nullishOr = (value: unknown, type: 'string' | 'number') => value == null || typeof value === type;
const nullishRecord = (value: unknown) => value == null || isRecord(value);

export function isChatChunk(value: unknown): value is ChatChunk {
  if (!isRecord(value)) return false;
  if (!nullishOr(value.id, 'string') || !nullishOr(value.created, 'number')) return false;
  if (!nullishOr(value.model, 'string') || !isUsage(value.usage)) return false;
  return Array.isArray(value.choices) && value.choices.every(isChoice);
}

function isChoice(choice: unknown): boolean {
  if (!isRecord(choice) || !nullishOr(choice.finish_reason, 'string')) return false;
  const delta = choice.delta;
  if (delta == null) return true;
  if (!isRecord(delta)) return false;
  if (delta.role != null && delta.role !== 'assistant' && delta.role !== '') return false;
  if (!nullishOr(delta.reasoning_content, 'string') || !nullishOr(delta.reasoning, 'string')) return false;
  const content = delta.content;
  if (content != null && typeof content !== 'string') {
    if (!Array.isArray(content) || !content.every((part) => isRecord(part) && typeof part.type === 'string'))
      return false;
  }
  const toolCalls = delta.tool_calls;
  return toolCalls == null || (Array.isArray(toolCalls) && toolCalls.every(isToolCallDelta));
}

function isToolCallDelta(call: unknown): boolean {
  if (!isRecord(call) || !nullishOr(call.index, 'number') || !nullishOr(call.id, 'string')) return false;
  const fn = call.function;
  if (!isRecord(fn) || !nullishOr(fn.name, 'string') || !nullishOr(fn.arguments, 'string')) return false;
  const extra = call.extra_content;
  if (extra == null) return true;
  if (!isRecord(extra) || !nullishRecord(extra.google)) return false;
  return extra.google == null || nullishOr(extra.google.thought_signature, 'string');
}

function isUsage(usage: unknown): boolean {
  if (usage == null) return true;
  if (!isRecord(usage)) return false;
  const numbers = ['prompt_tokens', 'completion_tokens', 'total_tokens'] as const;
  if (!numbers.every((key) => nullishOr(usage[key], 'number'))) return false;
  const prompt = usage.prompt_tokens_details;
  const completion = usage.completion_tokens_details;
  if (!nullishRecord(prompt) || !nullishRecord(completion)) return false;
  if (prompt != null && !nullishOr(prompt.cached_tokens, 'number')) return false;
  if (completion == null) return true;
  const details = completion;
  return ['reasoning_tokens', 'accepted_prediction_tokens', 'rejected_prediction_tokens'].every((key) =>
    nullishOr(details[key], 'number'),
  );
}

export function isChatErrorChunk(value: unknown): value is ChatErrorChunk {
  if (!isRecord(value) || !isRecord(value.error)) return false;
  const { message, type, code } = value.error;
  return (
    typeof message === 'string' &&
    nullishOr(type, 'string') &&
    (code == null || typeof code === 'string' || typeof code === 'number')
  );
}

/**
 * An error event's payload as the SDK path reports it: a record with a message becomes a
 * StreamProviderError with its type, code, HTTP status (given, or read off a few exact messages) and
 * retry hint; anything else stays as it is.
 */
export function streamErrorFrom(error: unknown): unknown {
  if (error instanceof Error || !isRecord(error)) return error;
  const nested =
    isRecord(error.response) && isRecord(error.response.error) ? error.response.error : undefined;
  const details = nested ?? (isRecord(error.error) ? error.error : undefined) ?? error;
  if (typeof details.message !== 'string') return error;
  const { message } = details;
  const type = stringOf(details.type) ?? stringOf(error.type);
  const code = codeOf(details.code) ?? codeOf(error.code);
  const statusCode =
    [details.statusCode, error.statusCode, details.status_code, error.status_code]
      .concat([details.status, error.status, details.code, error.code])
      .map(httpStatus)
      .find((status) => status !== undefined) ?? statusOfMessage(message);
  const retryHint = [details.isRetryable, error.isRetryable, details.is_retryable, error.is_retryable].find(
    (value): value is boolean => typeof value === 'boolean',
  );
  return new StreamProviderError({
    message,
    ...(type !== undefined && { type }),
    ...(code !== undefined && { code }),
    ...(statusCode !== undefined && { statusCode }),
    isRetryable: retryHint ?? retryableMessage(message) ?? isRetryableStatus(statusCode),
    data: error,
  });
}

/** An error event that is no chunk: its `error` with only the fields the SDK's error schema keeps. */
export function errorEventOf(chunk: ChatErrorChunk): ChatErrorChunk['error'] {
  const { message, type, param, code } = chunk.error;
  return {
    message,
    ...(type != null && { type }),
    ...(param != null && { param }),
    ...(code != null && { code }),
  };
}

const stringOf = (value: unknown) => (typeof value === 'string' ? value : undefined);
const codeOf = (value: unknown) =>
  typeof value === 'string' || typeof value === 'number' ? value : undefined;

function httpStatus(value: unknown): number | undefined {
  const status = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599
    ? status
    : undefined;
}

/** The exact messages the SDK reads a status from. */
function statusOfMessage(message: string): number | undefined {
  switch (message.trim().toLowerCase()) {
    case 'overloaded':
    case 'overloaded error':
    case 'model overloaded':
    case 'service unavailable':
      return 503;
    case 'internal server error':
      return 500;
    default:
      return undefined;
  }
}

function retryableMessage(message: string): boolean | undefined {
  return statusOfMessage(message) === undefined ? undefined : true;
}

function isRetryableStatus(status: number | undefined): boolean {
  return status !== undefined && (status === 408 || status === 409 || status === 429 || status >= 500);
}
