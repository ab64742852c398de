/**
 * Every machine code an error body of the API can carry (`{ error: <code>, message }`);
 * `http/error-mapping.ts` gives each its HTTP status in one table.
 */
export const ERROR_CODES = [
  'invalid_request',
  'invalid_model',
  'unauthorized',
  'forbidden',
  'insufficient_scope',
  'api_keys_plan',
  'oauth_apps_plan',
  'not_found',
  'unknown_tool_use',
  'conflict',
  'run_terminal',
  'session_busy',
  'session_ended',
  'idempotency_key_in_use',
  'idempotency_key_reused',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limit_exceeded',
  'internal_error',
  'unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Domain errors. Storage and the engine throw these; `http/` maps them onto
 * status codes in one table. None of them knows about HTTP.
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;
  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/** A request body, query or parameter that breaks a rule of the API. */
export class InvalidRequestError extends DomainError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('invalid_request', message, details);
  }
}

export interface ModelCandidate {
  id: string;
  label: string;
  source: string;
}

export class InvalidModelError extends DomainError {
  constructor(message: string, candidates?: ModelCandidate[]) {
    super('invalid_model', message, candidates ? { candidates } : {});
  }
}

export class NotFoundError extends DomainError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('not_found', message, details);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('forbidden', message, details);
  }
}

/** A write that collides with an existing row (duplicate slug, duplicate model pair). */
export class ConflictError extends DomainError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('conflict', message, details);
  }
}

/**
 * What a request or a run needs cannot be reached for now: the database or Redis does not answer,
 * or this replica is stopping. Answered `503 unavailable` with `Retry-After`; worth retrying.
 */
export class UnavailableError extends DomainError {
  constructor(message: string) {
    super('unavailable', message);
  }
}

/** The stores the service depends on. */
export type StoreName = 'database' | 'redis';

/**
 * The database or Redis is unreachable (refused or dropped connection, a terminated backend, a
 * connection that does not open in time). The adapters classify their drivers' failures into this
 * once; `cause` keeps the driver's error for the logs, the message names no host.
 */
export class StoreUnavailableError extends UnavailableError {
  readonly store: StoreName;
  constructor(store: StoreName, cause?: unknown) {
    super(`the ${store === 'database' ? 'database' : 'Redis server'} does not answer; retry shortly`);
    this.store = store;
    if (cause !== undefined) this.cause = cause;
  }
}

export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError;
}

/** An `Idempotency-Key` already used, on the same route, for a request with another body. */
export class IdempotencyKeyReusedError extends DomainError {
  constructor() {
    super(
      'idempotency_key_reused',
      'this Idempotency-Key was used for a request with a different body; use a new key for a new request',
    );
  }
}
