/** The bodies of non-2xx answers (the spec's Errors section). */
import { z } from 'zod';

export const modelCandidateSchema = z
  .object({ id: z.string(), label: z.string(), source: z.string() })
  .meta({ id: 'ModelCandidate', description: 'A model a `400 invalid_model` suggests instead.' });

export const errorBodySchema = z
  .object({
    error: z
      .string()
      .describe(
        'Machine code (invalid_request, invalid_model, not_found, forbidden, unknown_tool_use, run_terminal, rate_limit_exceeded…); some credential and lookup failures carry a text the spec fixes instead (see each response).',
      ),
    message: z.string().describe('What went wrong, for a person.'),
    code: z.string().optional().describe('The machine code, where `error` holds a text.'),
    candidates: z
      .array(modelCandidateSchema)
      .optional()
      .describe('invalid_model: models that would resolve.'),
    hint: z.string().optional().describe('How to fix it (the right workspace slug, the right key usage).'),
  })
  .meta({
    id: 'ErrorBody',
    description: 'The body of every error answer: `{ error, message }` plus details.',
  });

export const insufficientScopeBodySchema = z
  .object({
    error: z.literal('insufficient_scope'),
    required: z
      .union([z.string(), z.array(z.string())])
      .describe("The route's scope, or the list for a route needing several."),
    message: z.string(),
  })
  .meta({
    id: 'InsufficientScopeError',
    description: 'An OAuth access token lacks a scope the route requires.',
  });

export const credentialErrorBodySchema = z
  .object({
    error: z.enum(['Unauthorized', 'Invalid API key', 'Invalid access token']),
    code: z
      .literal('unauthorized')
      .optional()
      .describe('Present for unknown, expired or revoked credentials.'),
    message: z.string(),
  })
  .meta({
    id: 'CredentialError',
    description:
      'No credential (`Unauthorized`), or one matching no record, expired or revoked (`Invalid API key`, `Invalid access token`).',
  });

export const oauthErrorBodySchema = z
  .object({
    error: z
      .string()
      .describe('RFC 6749 code: invalid_client, invalid_grant, invalid_request, unsupported_grant_type, …'),
    error_description: z.string(),
  })
  .meta({ id: 'OAuthError', description: 'An error of the token or revocation endpoint (RFC 6749 §5.2).' });
