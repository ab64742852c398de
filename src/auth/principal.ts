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

/** An OAuth access token: an end user's grant to an app, or the app itself, limited to the token's scopes. */
export interface OAuthTokenPrincipal {
  kind: 'oauth_token';
  workspace: Workspace;
  appId: string;
  /** Null for a client-credentials token: the app acting for itself, with no end user. */
  grant: OauthGrant | null;
  scopes: readonly OAuthScope[];
}

export type Principal = ApiKeyPrincipal | OAuthTokenPrincipal;

/**
 * Agents the principal may run; empty means every non-system agent of its workspace. An app acting
 * for itself has no consent to narrow it (apps carry no agent list).
 */
export function agentAllowlist(principal: Principal): readonly string[] {
  if (principal.kind === 'api_key') return principal.apiKey.agentIds;
  return principal.grant?.agentIds ?? [];
}

/**
 * What rate limits count by within a workspace: the API key, or the grant behind an access token
 * (the app, for client-credentials tokens).
 */
export function rateLimitSubject(principal: Principal): string {
  if (principal.kind === 'api_key') return principal.apiKey.id;
  return principal.grant?.id ?? principal.appId;
}

/** The scopes of `required` the principal lacks; an API key has every scope. */
export function missingScopes(principal: Principal, required: readonly OAuthScope[]): OAuthScope[] {
  if (principal.kind === 'api_key') return [];
  return required.filter((scope) => !principal.scopes.includes(scope));
}
