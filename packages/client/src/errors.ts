import type { ModelCandidate } from './types.ts';

/**
 * Typed errors: one class per machine code an error body of the service can carry
 * (`{ error: <code>, message }`), all extending `AgentRunsError`. `errorFromResponse` picks the class.
 */

/** What every failed call of the service exposes. */
export interface AgentRunsErrorInit {
  status: number;
  code: string;
  message: string;
  body: unknown;
  headers: Headers;
}

export class AgentRunsError extends Error {
  /** HTTP status of the failed response (0 when no response was received). */
  readonly status: number;
  /** The machine code: the body's `error` code, else its `code`, else one derived from the status. */
  readonly code: string;
  /** The parsed JSON body (or the text when it was not JSON). */
  readonly body: unknown;
  readonly headers: Headers;
  constructor(init: AgentRunsErrorInit, options?: ErrorOptions) {
    super(init.message, options);
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.body = init.body;
    this.headers = init.headers;
  }
}

/** A field of the error body, when it is a string. */
function bodyString(body: unknown, field: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : undefined;
}

/** 401: missing, unknown, expired or revoked credential. */
export class UnauthorizedError extends AgentRunsError {}

/** 404 `not_found`: unknown workspace, run or session; `hint` names the right slug on a slug mismatch. */
export class NotFoundError extends AgentRunsError {
  readonly hint: string | undefined;
  constructor(init: AgentRunsErrorInit, options?: ErrorOptions) {
    super(init, options);
    this.hint = bodyString(init.body, 'hint');
  }
}

/** 400 `invalid_request`: the body, query or a header broke a rule of the API. */
export class InvalidRequestError extends AgentRunsError {}

/** 400 `invalid_model`: `modelId` unresolvable or ambiguous; `candidates` when the server lists some. */
export class InvalidModelError extends AgentRunsError {
  readonly candidates: ModelCandidate[];
  constructor(init: AgentRunsErrorInit, options?: ErrorOptions) {
    super(init, options);
    const candidates = (init.body as { candidates?: unknown } | null)?.candidates;
    this.candidates = Array.isArray(candidates) ? (candidates as ModelCandidate[]) : [];
  }
}

/** 403 `forbidden`: agent not allowed for the credential, or an API key with the wrong usage (`hint`). */
export class ForbiddenError extends AgentRunsError {
  readonly hint: string | undefined;
  constructor(init: AgentRunsErrorInit, options?: ErrorOptions) {
    super(init, options);
    this.hint = bodyString(init.body, 'hint');
  }
}

/** 403 `insufficient_scope`: the OAuth access token lacks `required` (one scope or several). */
export class InsufficientScopeError extends AgentRunsError {
  readonly required: string[];
  constructor(init: AgentRunsErrorInit, options?: ErrorOptions) {
    super(init, options);
    const required = (init.body as { required?: unknown } | null)?.required;
    this.required =
      typeof required === 'string'
        ? [required]
        : Array.isArray(required)
          ? required.filter((scope): scope is string => typeof scope === 'string')
          : [];
  }
}

/** 403 `api_keys_plan`: the workspace plan lacks the API-keys feature. */
export class ApiKeysPlanError extends AgentRunsError {}

/** 403 `oauth_apps_plan`: the workspace plan lacks the OAuth-applications feature. */
export class OAuthAppsPlanError extends AgentRunsError {}

/** 404 `unknown_tool_use`: a tool result for an unknown, already answered or terminated call. */
export class UnknownToolUseError extends AgentRunsError {}

/** 409 `run_terminal`: a tool result after the run's terminal event; the result was dropped. */
export class RunTerminalError extends AgentRunsError {}

/** 409 `session_busy`: a message while the session's previous run is in flight. */
export class SessionBusyError extends AgentRunsError {}

/** 409 `session_ended`: a message to an ended session. */
export class SessionEndedError extends AgentRunsError {}

/**
 * 409 `idempotency_key_in_use`: a request with this `Idempotency-Key` is still being processed; the
 * client retries it after `Retry-After` (the retry gets the first request's answer).
 */
export class IdempotencyKeyInUseError extends AgentRunsError {}

/** 422 `idempotency_key_reused`: the `Idempotency-Key` was used for a request with another body. */
export class IdempotencyKeyReusedError extends AgentRunsError {}

/** 409 `conflict`: a write colliding with an existing record. */
export class ConflictError extends AgentRunsError {}

/** 413 `payload_too_large`. */
export class PayloadTooLargeError extends AgentRunsError {}

/** 415 `unsupported_media_type`. */
export class UnsupportedMediaTypeError extends AgentRunsError {}

/** 429 `rate_limit_exceeded`, with the wait the server asks for and the limit that was hit. */
export class RateLimitError extends AgentRunsError {
  /** From `Retry-After` (seconds), when present. */
  readonly retryAfterSeconds: number | undefined;
  /** From `X-RateLimit-Limit`: requests per window of the bucket. */
  readonly limit: number | undefined;
  /** From `X-RateLimit-Remaining`. */
  readonly remaining: number | undefined;
  /** From `X-RateLimit-Reset` (epoch seconds). */
  readonly resetAt: Date | undefined;
  /** From `X-RateLimit-Bucket`: `run_start`, `lifecycle`, `other_mutations` or `transport`. */
  readonly bucket: string | undefined;
  constructor(init: AgentRunsErrorInit, options?: ErrorOptions) {
    super(init, options);
    const number = (name: string) => {
      const value = Number(init.headers.get(name) ?? Number.NaN);
      return Number.isFinite(value) ? value : undefined;
    };
    this.retryAfterSeconds = number('retry-after');
    this.limit = number('x-ratelimit-limit');
    this.remaining = number('x-ratelimit-remaining');
    const reset = number('x-ratelimit-reset');
    this.resetAt = reset === undefined ? undefined : new Date(reset * 1000);
    this.bucket = init.headers.get('x-ratelimit-bucket') ?? undefined;
  }
}

/** 500 `internal_error`. */
export class InternalServerError extends AgentRunsError {}

/**
 * 503 `unavailable`: the service's database or Redis does not answer for now, or the replica is
 * stopping; retry after `Retry-After` seconds. (Older servers said `storage_unavailable`.)
 */
export class StorageUnavailableError extends AgentRunsError {}

/**
 * The token endpoint refused to refresh the access token (`code` is the OAuth error, such as
 * `invalid_grant` once access was revoked): the user has to sign in again.
 */
export class OAuthRefreshError extends AgentRunsError {}

/**
 * No answer from the service: the connection was refused, reset or dropped before the response was
 * complete (`cause` is the network error). Status 0, code `connection_error`. Retried by the client
 * up to `maxRetries` times before it surfaces.
 */
export class ConnectionError extends AgentRunsError {
  constructor(
    message: string,
    options?: ErrorOptions,
    code: 'connection_error' | 'timeout' = 'connection_error',
  ) {
    super({ status: 0, code, message, body: undefined, headers: new Headers() }, options);
  }
}

/**
 * An attempt took longer than the call's `timeout` (a `ConnectionError` with code `timeout`),
 * retried like one. A caller's own abort is not this: it rejects with the signal's reason.
 */
export class TimeoutError extends ConnectionError {
  /** The timeout that ran out, per attempt. */
  readonly timeoutMs: number;
  constructor(timeoutMs: number, message: string, options?: ErrorOptions) {
    super(message, options, 'timeout');
    this.timeoutMs = timeoutMs;
  }
}

/** The run stream could not be (re)opened or read after the allowed consecutive attempts. */
export class RunStreamError extends AgentRunsError {
  readonly runId: string;
  /** The last seq received before giving up (0 when none). */
  readonly lastSeq: number;
  constructor(init: AgentRunsErrorInit & { runId: string; lastSeq: number }, options?: ErrorOptions) {
    super(init, options);
    this.runId = init.runId;
    this.lastSeq = init.lastSeq;
  }
}

/** A JSON-RPC error of a hosted A2A agent (`data.error` is the service's machine code, when given). */
export class A2aJsonRpcError extends Error {
  /** The JSON-RPC error code (-32601 unknown method, -32040 agent not available, -32042 run failed, …). */
  readonly rpcCode: number;
  readonly data: unknown;
  constructor(error: { code: number; message: string; data?: unknown }) {
    super(error.message);
    this.name = 'A2aJsonRpcError';
    this.rpcCode = error.code;
    this.data = error.data;
  }
}
