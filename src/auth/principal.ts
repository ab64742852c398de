import type { ApiKey } from '../domain/api-key.ts';
import type { OauthGrant } from '../domain/identity.ts';
import type { OAuthScope } from '../domain/oauth-scopes.ts';
import type { Workspace } from '../domain/workspace.ts';

/** Who is calling a workspace route, established by the credential. */
export interface ApiKeyPrincipal {
  kind: 'api_key';
  workspace: Workspace;
  apiKey: ApiKey;
}

/** An OAuth access token: an end user's grant to an app, limited to the token's scopes. */
export interface OAuthTokenPrincipal {
  kind: 'oauth_token';
  workspace: Workspace;
  grant: OauthGrant;
  scopes: readonly OAuthScope[];
}

export type Principal = ApiKeyPrincipal | OAuthTokenPrincipal;

/** Agents the principal may run; empty means every non-system agent of its workspace. */
export function agentAllowlist(principal: Principal): readonly string[] {
  return principal.kind === 'api_key' ? principal.apiKey.agentIds : principal.grant.agentIds;
}

/** What rate limits count by within a workspace: the API key, or the grant behind an access token. */
export function rateLimitSubject(principal: Principal): string {
  return principal.kind === 'api_key' ? principal.apiKey.id : principal.grant.id;
}

/** The scopes of `required` the principal lacks; an API key has every scope. */
export function missingScopes(principal: Principal, required: readonly OAuthScope[]): OAuthScope[] {
  if (principal.kind === 'api_key') return [];
  return required.filter((scope) => !principal.scopes.includes(scope));
}
