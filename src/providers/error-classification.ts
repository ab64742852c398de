import { APICallError, LoadAPIKeyError, RetryError, StreamProviderError } from 'ai';
import type { ProviderErrorClass, ProviderFailure } from '../engine/ports.ts';

/** What we could read off an error, whichever shape it came in. */
interface ErrorFacts {
  status: number | undefined;
  code: string | undefined;
  message: string;
  headers: Record<string, string> | undefined;
  body: unknown;
}

const CONTEXT_WINDOW_CODES = new Set(['context_length_exceeded', 'model_context_window_exceeded']);
const CONTEXT_WINDOW_MESSAGES = [
  /prompt is too long/i, // Anthropic
  /input is too long/i, // Anthropic on Bedrock
  /exceeds the maximum number of tokens/i, // Gemini
  /maximum context length/i, // OpenAI chat, vLLM
  /context[ _-]?(window|length|limit)/i, // OpenAI responses "exceeds the context window"; Anthropic "exceed context limit"
  /too many (input )?tokens/i,
];
const CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
/** Errors raised when a provider answered 2xx with something unreadable. */
const BAD_RESPONSE_ERRORS = new Set([
  'AI_InvalidResponseDataError',
  'AI_JSONParseError',
  'AI_EmptyResponseBodyError',
]);

/**
 * Classifies a failed provider call (an AI SDK error, a stream error part, or a network error) into
 * the spec's `errorClass`, with the provider's status, code, message and retry hint. Aborts are
 * not classified here: callers check their own signal first.
 */
export function classifyProviderError(error: unknown): ProviderFailure {
  const cause = RetryError.isInstance(error) ? error.lastError : error;

  if (APICallError.isInstance(cause)) {
    // No status: the request never got an answer. 200: the body failed after a successful start,
    // i.e. the connection dropped mid-stream.
    if (cause.statusCode === undefined || cause.statusCode === 200) return transportFailure(cause);
    return byStatus(providerFacts(cause));
  }
  if (StreamProviderError.isInstance(cause)) {
    const facts = providerFacts(cause);
    if (facts.status !== undefined) return byStatus(facts);
    // An error event in a 200 stream with no status the SDK could infer.
    const apiCode = facts.code === undefined ? {} : { apiCode: facts.code };
    if (isContextWindow(facts)) return { ...failure('context_window', facts.message, false), ...apiCode };
    const errorClass = cause.isRetryable ? 'server' : 'unknown';
    return { ...failure(errorClass, facts.message, cause.isRetryable), ...apiCode };
  }
  if (LoadAPIKeyError.isInstance(cause)) return failure('auth', cause.message, false);
  if (cause instanceof Error && BAD_RESPONSE_ERRORS.has(cause.name)) {
    return failure('server', `unreadable provider response: ${cause.message}`, true);
  }
  if (cause instanceof Error && cause.name === 'TimeoutError') return failure('timeout', cause.message, true);
  const network = networkCode(cause);
  if (network !== undefined) return transportFailure(cause);
  return failure('unknown', errorMessage(cause), false);
}

function byStatus(facts: ErrorFacts): ProviderFailure {
  const { status = 0, code } = facts;
  const retryAfter = retryAfterMs(facts);
  const extras = {
    apiStatus: status,
    ...(code === undefined ? {} : { apiCode: code }),
    ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
  };
  const make = (errorClass: ProviderErrorClass, retryable: boolean): ProviderFailure => ({
    ...failure(errorClass, facts.message, retryable),
    ...extras,
  });

  if (status === 429) return make('rate_limit', code !== 'insufficient_quota');
  if (status === 529 || status === 503 || code === 'overloaded_error') return make('overloaded', true);
  if (status === 408) return make('timeout', true);
  if (status === 504) return make('upstream_deadline', true);
  if (status === 401 || status === 403) return make('auth', false);
  if (status >= 500) return make('server', true);
  if (status >= 400) return make(isContextWindow(facts) ? 'context_window' : 'invalid_request', false);
  return make('unknown', false);
}

function isContextWindow({ code, message }: ErrorFacts): boolean {
  if (code !== undefined && CONTEXT_WINDOW_CODES.has(code)) return true;
  return CONTEXT_WINDOW_MESSAGES.some((pattern) => pattern.test(message));
}

function providerFacts(error: APICallError | StreamProviderError): ErrorFacts {
  const body = APICallError.isInstance(error) ? (error.data ?? parseJson(error.responseBody)) : error.data;
  const details = errorObject(body);
  const bodyMessage = stringField(details, 'message');
  const streamCode = StreamProviderError.isInstance(error)
    ? (stringValue(error.code) ?? stringValue(error.type))
    : undefined;
  return {
    status: error.statusCode,
    // OpenAI: error.code, else error.type; Anthropic: error.type; Google: error.status.
    code:
      streamCode ??
      stringField(details, 'code') ??
      stringField(details, 'type') ??
      stringField(details, 'status'),
    message: redactSecrets(bodyMessage ?? error.message),
    headers: APICallError.isInstance(error) ? error.responseHeaders : undefined,
    body,
  };
}

/** The `error` object of a provider error body (`{ error: {...} }` in all three APIs). */
function errorObject(body: unknown): Record<string, unknown> | undefined {
  if (!isRecord(body)) return undefined;
  return isRecord(body.error) ? body.error : body;
}

function transportFailure(error: unknown): ProviderFailure {
  const code = networkCode(error);
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return failure('timeout', `provider connection timed out (${code})`, true);
  }
  const detail = errorChain(error)
    .slice(1)
    .map((entry) => entry.message)
    .filter((text) => text !== '')
    .join(': ');
  const top = errorMessage(error);
  const dropped = APICallError.isInstance(error) && error.statusCode === 200;
  const message = dropped
    ? `provider response ended unexpectedly${detail === '' ? '' : ` (${detail})`}`
    : detail === '' || top.includes(detail)
      ? top
      : `${top}: ${detail}`;
  return failure('server', redactSecrets(message), true);
}

/** The first Node/undici error code found along the `cause` chain. */
function networkCode(error: unknown): string | undefined {
  for (const entry of errorChain(error)) {
    const code = stringValue((entry as { code?: unknown }).code);
    if (code !== undefined && (CONNECTION_CODES.has(code) || TIMEOUT_CODES.has(code))) return code;
    if (entry.name === 'TypeError' && /^(fetch failed|terminated)$/.test(entry.message))
      return 'UND_ERR_SOCKET';
  }
  return undefined;
}

function errorChain(error: unknown): Error[] {
  const chain: Error[] = [];
  let current: unknown = error;
  while (current instanceof Error && chain.length < 8 && !chain.includes(current)) {
    chain.push(current);
    current = current.cause;
  }
  return chain;
}

/** `retry-after-ms` (OpenAI), `retry-after` in seconds or as an HTTP date, or Google's RetryInfo. */
function retryAfterMs({ headers, body }: ErrorFacts): number | undefined {
  const milliseconds = Number.parseFloat(headers?.['retry-after-ms'] ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.round(milliseconds);
  const retryAfter = headers?.['retry-after']?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.round(Number(retryAfter) * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
  }
  const details = errorObject(body)?.details;
  if (Array.isArray(details)) {
    for (const detail of details) {
      const delay = isRecord(detail) ? stringValue(detail.retryDelay) : undefined;
      const seconds = delay === undefined ? NaN : Number.parseFloat(delay);
      if (delay?.endsWith('s') && Number.isFinite(seconds)) return Math.round(seconds * 1000);
    }
  }
  return undefined;
}

/** Provider messages sometimes echo part of a credential; never pass one on. */
export function redactSecrets(text: string): string {
  return text
    .replace(/\b(sk|rk|pk)-[A-Za-z0-9_*-]{8,}/g, '[redacted]')
    .replace(/\bAIza[0-9A-Za-z_-]{20,}/g, '[redacted]')
    .replace(/\bsvc_[A-Za-z0-9_]{8,}/g, '[redacted]')
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [redacted]');
}

function failure(errorClass: ProviderErrorClass, message: string, retryable: boolean): ProviderFailure {
  return { errorClass, message: redactSecrets(message), retryable };
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  return String(error);
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringValue(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function stringField(record: Record<string, unknown> | undefined, key: string): string | undefined {
  return record === undefined ? undefined : stringValue(record[key]);
}
