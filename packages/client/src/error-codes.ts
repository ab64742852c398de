/**
 * The machine codes of the service's error bodies (`{ error: <code>, message }`): every code the
 * OpenAPI document lists in its error responses, plus `internal_error` (any route's 500, which the
 * document does not repeat per route). test/client/types-match-openapi.test.ts checks the list
 * against the served document.
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

const KNOWN: ReadonlySet<string> = new Set(ERROR_CODES);

export function isErrorCode(code: string): code is ErrorCode {
  return KNOWN.has(code);
}
