import type { ApiKeyStore, OAuthStore } from '../engine/ports.ts';
import { API_KEY_PREFIX, hashApiKey, OAUTH_ACCESS_TOKEN_PREFIX } from './api-key-secret.ts';
import { hashSecret } from './oauth/token-secrets.ts';
import type { Principal } from './principal.ts';

export type AuthFailure =
  | { reason: 'missing' }
  | { reason: 'invalid' }
  | { reason: 'wrong_usage'; usage: string }
  | { reason: 'plan_lacks_api_keys'; workspaceSlug: string }
  | { reason: 'plan_lacks_oauth_apps'; workspaceSlug: string };

export type AuthOutcome = { ok: true; principal: Principal } | ({ ok: false } & AuthFailure);

/** How often a key's `lastUsedAt` is refreshed at most: one write a minute, not one a request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** The credential of a request, from `Authorization: Bearer …` or `X-API-Key`. */
export function credentialFrom(headers: Record<string, string | string[] | undefined>): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match?.[1]) return match[1];
  }
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim() !== '') return apiKey.trim();
  return undefined;
}

/**
 * Establishes the principal of a workspace-route request. Credentials are told
 * apart by prefix: `svc_at_` is an OAuth access token, other `svc_` values are
 * workspace API keys; anything else matches no record.
 */
export async function authenticate(
  credential: string | undefined,
  stores: { apiKeys: ApiKeyStore; oauth: OAuthStore },
  now: Date = new Date(),
): Promise<AuthOutcome> {
  if (credential === undefined) return { ok: false, reason: 'missing' };
  if (credential.startsWith(OAUTH_ACCESS_TOKEN_PREFIX))
    return authenticateAccessToken(credential, stores.oauth, now);
  if (!credential.startsWith(API_KEY_PREFIX)) return { ok: false, reason: 'invalid' };
  const { apiKeys } = stores;
  const found = await apiKeys.findByHash(hashApiKey(credential));
  if (!found) return { ok: false, reason: 'invalid' };
  const { apiKey, workspace } = found;
  if (apiKey.revokedAt !== null) return { ok: false, reason: 'invalid' };
  if (apiKey.expiresAt !== null && Date.parse(apiKey.expiresAt) <= now.getTime())
    return { ok: false, reason: 'invalid' };
  if (apiKey.usage !== 'developer_api') return { ok: false, reason: 'wrong_usage', usage: apiKey.usage };
  if (!workspace.features.apiKeys)
    return { ok: false, reason: 'plan_lacks_api_keys', workspaceSlug: workspace.slug };

  if (apiKey.lastUsedAt === null || now.getTime() - Date.parse(apiKey.lastUsedAt) > LAST_USED_RESOLUTION_MS) {
    await apiKeys.touchLastUsed(apiKey.id, now.toISOString());
  }
  return { ok: true, principal: { kind: 'api_key', workspace, apiKey } };
}

/**
 * An access token is valid until it expires, its grant is revoked or deleted, or its app or user is
 * deleted (a client-credentials token has no grant or user: it ends with its expiry or its app).
 */
async function authenticateAccessToken(
  credential: string,
  oauth: OAuthStore,
  now: Date,
): Promise<AuthOutcome> {
  const found = await oauth.findAccessToken(hashSecret(credential));
  const revoked = (found?.grant?.revokedAt ?? null) !== null;
  if (!found || revoked || Date.parse(found.expiresAt) <= now.getTime()) {
    return { ok: false, reason: 'invalid' };
  }
  const { workspace, appId, grant, scopes } = found;
  if (!workspace.features.oauthApps)
    return { ok: false, reason: 'plan_lacks_oauth_apps', workspaceSlug: workspace.slug };
  return { ok: true, principal: { kind: 'oauth_token', workspace, appId, grant, scopes } };
}
