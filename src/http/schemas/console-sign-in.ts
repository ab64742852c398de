/** The console's OAuth sign-in routes: what they read and answer, for validation and the API reference. */
import { z } from 'zod';

export const consoleSignInStartQuerySchema = z.object({
  workspace: z.string().describe('The slug of the workspace to sign in to.'),
});

export const consoleCallbackQuerySchema = z.object({
  code: z.string().optional().describe('The authorization code.'),
  state: z.string().optional().describe('The state the sign-in started with.'),
  error: z
    .string()
    .optional()
    .describe('The authorization server refused (`access_denied`: consent denied).'),
  error_description: z.string().optional(),
  iss: z.string().optional().describe('The issuer (RFC 9207): must be this service.'),
});

export const consoleHandoffBodySchema = z
  .object({
    handoff: z
      .string()
      .min(1)
      .max(200)
      .describe('The handoff id from the fragment of the redirect to `/console#/oauth-handoff/{id}`.'),
  })
  .meta({ id: 'ConsoleHandoffRedemption' });

export const consoleHandoffResponseSchema = z
  .object({
    accessToken: z.string().describe('An `svc_at_` access token for the workspace; it lasts one hour.'),
    tokenType: z.literal('Bearer'),
    workspaceSlug: z.string(),
    expiresAt: z.string().describe('When the access token expires (ISO 8601).'),
  })
  .meta({ id: 'ConsoleHandoff' });
