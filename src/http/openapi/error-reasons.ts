import type { z } from 'zod';
import type { ErrorCode } from '../../domain/errors.ts';
import { statusOf } from '../error-mapping.ts';
import {
  credentialErrorBodySchema,
  errorBodySchema,
  insufficientScopeBodySchema,
} from '../schemas/responses/error-bodies.ts';

/** One way a route can fail: its status, what `error` holds, when, with which body and headers. */
export interface ErrorReason {
  status: number;
  error: string;
  when: string;
  body: z.ZodType;
  headers?: Readonly<Record<string, string>>;
}

/** When each error code is answered, in words (a new code does not compile until it has its line). */
const WHEN: Readonly<Record<ErrorCode, string>> = {
  invalid_request: 'the body, the query or a header breaks a rule of the API (the message names each field)',
  invalid_model: 'modelId does not resolve or is ambiguous (with `candidates` when they help)',
  unauthorized: 'the admin token is missing or wrong',
  forbidden: "the credential may not run this agent (or the agentId is unknown or another workspace's)",
  insufficient_scope: 'the access token lacks a scope this route requires',
  api_keys_plan: "the workspace's plan lacks the API-keys feature",
  oauth_apps_plan: "the workspace's plan lacks the OAuth-applications feature (access tokens)",
  not_found: 'what the path names does not exist (in this workspace)',
  unknown_tool_use:
    'no pending local tool call has this toolUseId (unknown, already answered, or its run ended)',
  conflict: 'it would duplicate an existing one (slug, name, email, or provider and vendor model)',
  run_terminal: 'the run already produced its terminal event: the result was dropped',
  session_busy: 'a run of the session is still in progress: wait for its terminal event or cancel it',
  session_ended: 'the session has ended: create a new one',
  idempotency_key_in_use:
    'a request with this Idempotency-Key is still being processed: retry after `Retry-After` seconds',
  idempotency_key_reused: 'this Idempotency-Key was used on this route for a request with a different body',
  payload_too_large: "the body exceeds the route's limit (the message names it in bytes)",
  unsupported_media_type:
    "the body's content type is neither JSON nor text (a text body is refused as invalid_request)",
  rate_limit_exceeded: "the credential's bucket of this workspace is spent for the minute",
  internal_error: 'an unexpected failure (logged; the answer reveals nothing)',
  unavailable:
    'the database or Redis does not answer for now, or this replica is stopping: retry after `Retry-After` seconds',
};

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': "The bucket's maximum per minute.",
  'X-RateLimit-Remaining': 'Requests left in the current window.',
  'X-RateLimit-Reset': 'When the window resets (Unix seconds).',
  'X-RateLimit-Bucket': 'run_start, lifecycle, other_mutations or transport.',
};

/** The headers every metered (workspace-credential) answer carries. */
export const METERED_HEADERS: Readonly<Record<string, string>> = RATE_LIMIT_HEADERS;

export function reasonOf(code: ErrorCode): ErrorReason {
  return {
    status: statusOf(code),
    error: code,
    when: WHEN[code],
    body: errorBodySchema,
    ...(code === 'rate_limit_exceeded' && {
      headers: { 'Retry-After': 'Seconds until the window resets.', ...RATE_LIMIT_HEADERS },
    }),
    ...((code === 'unavailable' || code === 'idempotency_key_in_use') && {
      headers: { 'Retry-After': 'Seconds to wait before retrying.' },
    }),
  };
}

/** How a workspace credential (API key or OAuth access token) is refused, before the handler runs. */
export function credentialReasons(options: { scoped: boolean; slugInPath: boolean }): ErrorReason[] {
  const challenge = { 'WWW-Authenticate': 'Bearer challenge (RFC 6750).' };
  return [
    {
      status: 401,
      error: 'Unauthorized',
      when: 'no credential was sent',
      body: credentialErrorBodySchema,
      headers: challenge,
    },
    {
      status: 401,
      error: 'Invalid API key | Invalid access token',
      when: 'the credential matches no record, is expired or revoked',
      body: credentialErrorBodySchema,
      headers: challenge,
    },
    {
      status: 403,
      error: 'API key usage not permitted',
      when: "the API key's usage is not developer_api (with a `hint`)",
      body: errorBodySchema,
    },
    reasonOf('api_keys_plan'),
    reasonOf('oauth_apps_plan'),
    options.scoped
      ? {
          ...reasonOf('insufficient_scope'),
          body: insufficientScopeBodySchema,
          headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="<the required scopes>"' },
        }
      : { ...reasonOf('forbidden'), when: 'OAuth access tokens may not call this route' },
    ...(options.slugInPath
      ? [
          {
            status: 404,
            error: 'Workspace path mismatch | not_found',
            when: "the slug is not the credential's workspace (the `hint` names the right one)",
            body: errorBodySchema,
          },
        ]
      : []),
    reasonOf('rate_limit_exceeded'),
    reasonOf('unavailable'),
  ];
}

/** A refused admin token; a database that does not answer. */
export function adminReasons(): ErrorReason[] {
  return [reasonOf('unauthorized'), reasonOf('unavailable')];
}

/** How a JSON body is refused before the handler reads it. */
export function jsonBodyReasons(): ErrorReason[] {
  return [reasonOf('invalid_request'), reasonOf('payload_too_large'), reasonOf('unsupported_media_type')];
}
