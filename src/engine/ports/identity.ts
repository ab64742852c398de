import type { OauthApp, OauthGrant, User } from '../../domain/identity.ts';
import type { OAuthScope } from '../../domain/oauth-scopes.ts';
import type { Workspace } from '../../domain/workspace.ts';

/** A registered OAuth app, its workspace and its client secret's hash, for client authentication. */
export interface OAuthClientRecord {
  app: OauthApp;
  workspace: Workspace;
  clientSecretHash: string;
}

/** A one-time authorization code as stored (by hash): what the user allowed and the PKCE challenge it binds. */
export interface StoredAuthorizationCode {
  codeHash: string;
  workspaceId: string;
  appId: string;
  userId: string;
  redirectUri: string;
  scopes: OAuthScope[];
  agentIds: string[];
  codeChallenge: string;
  codeChallengeMethod: string;
  expiresAt: string;
}

/** A new access token: its hash, its scopes (the grant's, or fewer after a narrowing refresh) and its expiry. */
export interface NewAccessToken {
  hash: string;
  scopes: OAuthScope[];
  expiresAt: string;
}

/** An access token's grant and workspace, as a request's credential check needs them. */
export interface AccessTokenRecord {
  grant: OauthGrant;
  workspace: Workspace;
  scopes: OAuthScope[];
  expiresAt: string;
}

/** The OAuth authorization server's storage: apps, codes, grants and access tokens (secrets only as hashes). */
export interface OAuthStore {
  findClient(appId: string): Promise<OAuthClientRecord | undefined>;
  saveCode(code: StoredAuthorizationCode): Promise<void>;
  findCode(codeHash: string): Promise<StoredAuthorizationCode | undefined>;
  /** Deletes the code; false when it was already used (so a code is exchanged at most once). */
  consumeCode(codeHash: string): Promise<boolean>;
  /** A new grant with its refresh token's hash and its first access token, in one transaction. */
  createGrant(
    grant: Omit<OauthGrant, 'createdAt' | 'revokedAt'>,
    refreshTokenHash: string,
    accessToken: NewAccessToken,
  ): Promise<OauthGrant>;
  /** The grant of this refresh token unless it was revoked. */
  findGrantByRefreshHash(refreshTokenHash: string): Promise<OauthGrant | undefined>;
  /** Adds an access token to a live grant (and drops the grant's expired ones); false if the grant is gone or revoked. */
  addAccessToken(grantId: string, accessToken: NewAccessToken): Promise<boolean>;
  findAccessToken(tokenHash: string): Promise<AccessTokenRecord | undefined>;
  /** Revokes the grant: its refresh token and every access token stop working. */
  revokeGrant(grantId: string): Promise<void>;
  deleteAccessToken(tokenHash: string): Promise<void>;
  findUser(workspaceId: string, userId: string): Promise<User | undefined>;
}
