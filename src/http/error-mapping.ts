import type { DomainError } from '../domain/errors.ts';

/** The one table from domain error codes to HTTP status codes. */
const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  invalid_request: 400,
  invalid_model: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  unknown_tool_use: 404,
  conflict: 409,
  run_terminal: 409,
  session_busy: 409,
  session_ended: 409,
  rate_limit_exceeded: 429,
};

export interface ErrorResponse {
  status: number;
  body: Record<string, unknown>;
}

export function errorResponse(error: DomainError): ErrorResponse {
  return {
    status: STATUS_BY_CODE[error.code] ?? 500,
    body: { error: error.code, message: error.message, ...error.details },
  };
}
