/**
 * The query and form parameters of the OAuth endpoints and pages, for the API reference. The
 * endpoints check them by hand (`auth/oauth/`, `routes/oauth/`) to answer exactly as RFC 6749 and
 * the pages need: these schemas describe what they read, they do not validate.
 */
import { z } from 'zod';
import { OAUTH_SCOPE_NAMES } from '../../domain/oauth-scopes.ts';

/**
 * The fields of a parsed form or query string, each sent once or repeated: what the pages read from
 * `request.body` and `request.query`. Anything else (no body) reads as no fields.
 */
export const formFieldsSchema = z.record(z.string(), z.union([z.string(), z.array(z.string())])).catch({});
export type FormFields = z.output<typeof formFieldsSchema>;

const scopeList = z.string().describe(`Space-separated scopes, among: ${OAUTH_SCOPE_NAMES.join(', ')}.`);

export const authorizeQuerySchema = z.object({
  response_type: z.literal('code'),
  client_id: z.string().describe("The app's client id (`app_…`)."),
  redirect_uri: z
    .string()
    .optional()
    .describe('One of the redirect URIs registered for the app; optional when it has exactly one.'),
  scope: scopeList,
  state: z.string().max(2048).optional().describe('Returned unchanged to the redirect URI; visible ASCII.'),
  code_challenge: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/)
    .describe('The base64url SHA-256 of the PKCE code verifier.'),
  code_challenge_method: z.literal('S256').describe('PKCE method; plain is refused.'),
});

const pendingRequest = {
  request: z.string().describe('The pending authorization request the page was shown for.'),
  csrf: z.string().describe("The form's CSRF token."),
};

export const consentQuerySchema = z.object({ request: pendingRequest.request });

export const signInFormSchema = z.object({
  ...pendingRequest,
  email: z.string(),
  password: z.string(),
});

export const signOutFormSchema = z.object(pendingRequest);

export const consentFormSchema = z.object({
  ...pendingRequest,
  decision: z.enum(['allow', 'deny']),
  agentIds: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe('The agents the token may run (repeat the field); none means every non-system agent.'),
});

const clientAuthentication = {
  client_id: z.string().optional().describe('client_secret_post (or use HTTP Basic: client_secret_basic).'),
  client_secret: z
    .string()
    .optional()
    .describe('client_secret_post (or use HTTP Basic: client_secret_basic).'),
};

export const tokenFormSchema = z.object({
  grant_type: z.enum(['authorization_code', 'refresh_token', 'client_credentials']),
  code: z.string().optional().describe('authorization_code: the code from the redirect.'),
  redirect_uri: z
    .string()
    .optional()
    .describe('authorization_code: the redirect URI of the authorization request (required).'),
  code_verifier: z.string().optional().describe('authorization_code: the PKCE verifier (required).'),
  refresh_token: z
    .string()
    .optional()
    .describe('refresh_token: the grant\u2019s refresh token (`svc_rt_…`).'),
  scope: scopeList
    .optional()
    .describe(
      'refresh_token: fewer scopes than granted, never more. client_credentials (required): the scopes of the token; svc.identity:read is left out.',
    ),
  ...clientAuthentication,
});

export const revokeFormSchema = z.object({
  token: z.string().describe('A refresh token (ends the grant) or an access token (ends that token).'),
  token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
  ...clientAuthentication,
});
