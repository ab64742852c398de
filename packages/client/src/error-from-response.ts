import {
  AgentRunsError,
  ApiKeysPlanError,
  ConflictError,
  ForbiddenError,
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  InsufficientScopeError,
  InternalServerError,
  InvalidModelError,
  InvalidRequestError,
  NotFoundError,
  OAuthAppsPlanError,
  PayloadTooLargeError,
  RateLimitError,
  RunTerminalError,
  SessionBusyError,
  SessionEndedError,
  StorageUnavailableError,
  UnauthorizedError,
  UnknownToolUseError,
  UnsupportedMediaTypeError,
  type AgentRunsErrorInit,
} from './errors.ts';
import { isErrorCode, type ErrorCode } from './error-codes.ts';

type ErrorClass = new (init: AgentRunsErrorInit) => AgentRunsError;

/** A class for every code of the document: a code added to ERROR_CODES does not compile until it has one. */
const CLASS_BY_CODE: Readonly<Record<ErrorCode, ErrorClass>> = {
  unauthorized: UnauthorizedError,
  not_found: NotFoundError,
  invalid_request: InvalidRequestError,
  invalid_model: InvalidModelError,
  forbidden: ForbiddenError,
  insufficient_scope: InsufficientScopeError,
  api_keys_plan: ApiKeysPlanError,
  oauth_apps_plan: OAuthAppsPlanError,
  unknown_tool_use: UnknownToolUseError,
  run_terminal: RunTerminalError,
  session_busy: SessionBusyError,
  session_ended: SessionEndedError,
  idempotency_key_in_use: IdempotencyKeyInUseError,
  idempotency_key_reused: IdempotencyKeyReusedError,
  conflict: ConflictError,
  payload_too_large: PayloadTooLargeError,
  unsupported_media_type: UnsupportedMediaTypeError,
  rate_limit_exceeded: RateLimitError,
  internal_error: InternalServerError,
  unavailable: StorageUnavailableError,
};

/** The code of servers before `unavailable`. */
const LEGACY_CODES: Readonly<Record<string, ErrorCode>> = { storage_unavailable: 'unavailable' };

/** The code a status implies when the body names none (credential failures carry text in `error`). */
const CODE_BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limit_exceeded',
  500: 'internal_error',
  503: 'unavailable',
};

const MACHINE_CODE = /^[a-z][a-z0-9_]*$/;

/**
 * The machine code of an error body. Run and session routes send `{ error: <code> }`; credential
 * failures send `{ error: <text>, code? }` (`Unauthorized`, `Invalid access token`, `Run not found`),
 * so a text `error` defers to `code` and then to the status.
 */
export function errorCodeOf(status: number, body: unknown): string {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  if (typeof fields.error === 'string' && MACHINE_CODE.test(fields.error)) return fields.error;
  if (typeof fields.code === 'string' && MACHINE_CODE.test(fields.code)) return fields.code;
  return CODE_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'http_error');
}

function messageOf(status: number, body: unknown): string {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  if (typeof fields.message === 'string' && fields.message !== '') return fields.message;
  if (typeof fields.error === 'string' && fields.error !== '') return fields.error;
  if (typeof body === 'string' && body !== '') return body.slice(0, 500);
  return `HTTP ${status}`;
}

/** The typed error for a status, body and headers (unknown codes give the base class). */
export function errorFor(status: number, body: unknown, headers: Headers): AgentRunsError {
  const code = errorCodeOf(status, body);
  const init = { status, code, message: messageOf(status, body), body, headers };
  const known = isErrorCode(code) ? code : LEGACY_CODES[code];
  const ErrorOfCode = known === undefined ? AgentRunsError : CLASS_BY_CODE[known];
  return new ErrorOfCode(init);
}

/** Reads a failed response's body (JSON when it parses, else text) and returns its typed error. */
export async function errorFromResponse(response: Response): Promise<AgentRunsError> {
  const text = await response.text().catch(() => '');
  let body: unknown = text;
  try {
    if (text !== '') body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return errorFor(response.status, body, response.headers);
}
