/** Answers of the OAuth endpoints and of userinfo. */
import { z } from 'zod';

export const authorizationServerMetadataSchema = z
  .object({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    revocation_endpoint: z.string(),
    userinfo_endpoint: z.string(),
    scopes_supported: z.array(z.string()),
    response_types_supported: z.array(z.string()),
    response_modes_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    revocation_endpoint_auth_methods_supported: z.array(z.string()),
    authorization_response_iss_parameter_supported: z.boolean(),
  })
  .meta({ id: 'AuthorizationServerMetadata', description: 'RFC 8414 authorization server metadata.' });

export const tokenResponseSchema = z
  .object({
    access_token: z.string().describe('`svc_at_…`'),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().describe('Seconds: 3600.'),
    refresh_token: z
      .string()
      .optional()
      .describe('`svc_rt_…`: persistent, not rotated. None for client_credentials.'),
    scope: z.string().optional().describe('Space-separated granted scopes.'),
  })
  .meta({ id: 'TokenResponse' });

export const userInfoSchema = z
  .object({
    sub: z.string().nullable().describe('The user id; null for an API key.'),
    email: z.string().nullable().describe('Null for an API key.'),
    name: z.string().nullable().optional(),
    workspaceId: z.string(),
    workspaceSlug: z.string().describe('The slug to use in workspace routes.'),
  })
  .meta({ id: 'UserInfo' });
