import { OAUTH_SCOPES, type OAuthScope } from '../../domain/oauth-scopes.ts';
import type { RouteAuth } from './describe-route.ts';

/** How a route is called: with a workspace credential (holding `scopes` when it is an access token), or per `RouteAuth`. */
export type RouteSecurity = { kind: 'credential'; scopes: readonly OAuthScope[] } | { kind: RouteAuth };

type SecurityRequirement = Record<string, string[]>;

/** The security schemes of the document; `urlOf` turns a service path into the URL clients use. */
export function securitySchemes(urlOf: (path: string) => string) {
  const tokenUrl = urlOf('/oauth/token');
  // An app acting for itself is never given the end user's identity scope.
  const { 'svc.identity:read': _identity, ...appScopes } = OAUTH_SCOPES;
  return {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      description:
        'A workspace credential in `Authorization: Bearer …`: a Developer-API key (`svc_…`, every scope) or an OAuth access token (`svc_at_…`, the scopes granted at consent).',
    },
    apiKeyHeader: {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
      description: 'The same workspace credential (`svc_…` or `svc_at_…`) in `X-API-Key`.',
    },
    oauth2: {
      type: 'oauth2',
      description:
        'Authorization Code with PKCE (S256 only) for confidential clients, and Client Credentials for an app acting for itself (no end user, no refresh token, no `svc.identity:read`); access tokens (`svc_at_…`) live 1 hour, refresh tokens are persistent and not rotated. Send the token as a bearer credential.',
      flows: {
        authorizationCode: {
          authorizationUrl: urlOf('/oauth/authorize'),
          tokenUrl,
          refreshUrl: tokenUrl,
          scopes: { ...OAUTH_SCOPES },
        },
        clientCredentials: { tokenUrl, scopes: appScopes },
      },
    },
    adminToken: {
      type: 'http',
      scheme: 'bearer',
      description: 'The operator token `AGENT_RUNS_ADMIN_TOKEN` in `Authorization: Bearer …`.',
    },
    oauthClient: {
      type: 'http',
      scheme: 'basic',
      description:
        "An OAuth app's client id and secret: HTTP Basic (`client_secret_basic`), or `client_id` and `client_secret` in the form (`client_secret_post`).",
    },
  } as const;
}

/** The operation's `security`: the alternatives that authorize it (none for public routes). */
export function securityRequirements(security: RouteSecurity): SecurityRequirement[] {
  switch (security.kind) {
    case 'credential':
      return [
        { bearerAuth: [] },
        { apiKeyHeader: [] },
        ...(security.scopes.length > 0 ? [{ oauth2: [...security.scopes] }] : []),
      ];
    case 'admin':
      return [{ adminToken: [] }];
    case 'oauth_client':
      return [{ oauthClient: [] }];
    case 'none':
      return [];
  }
}
