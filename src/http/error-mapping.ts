import type { DomainError, ErrorCode } from '../domain/errors.ts';

/** The one table from API error codes to HTTP status codes: a new code does not compile until it has one. */
const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  invalid_request: 400,
  invalid_model: 400,
  unauthorized: 401,
  forbidden: 403,
  insufficient_scope: 403,
  api_keys_plan: 403,
  oauth_apps_plan: 403,
  not_found: 404,
  unknown_tool_use: 404,
  conflict: 409,
  run_terminal: 409,
  session_busy: 409,
  session_ended: 409,
  idempotency_key_in_use: 409,
  idempotency_key_reused: 422,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limit_exceeded: 429,
  internal_error: 500,
  unavailable: 503,
};

export function statusOf(code: ErrorCode): number {
  return STATUS_BY_CODE[code];
}

export interface ErrorResponse {
  status: number;
  body: { error: ErrorCode; message: string } & Record<string, unknown>;
}

export function errorResponse(error: DomainError): ErrorResponse {
  return {
    status: statusOf(error.code),
    body: { error: error.code, message: error.message, ...error.details },
  };
}
