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

/** An access token's app, grant and workspace, as a request's credential check needs them. */
export interface AccessTokenRecord {
  appId: string;
  /** The end user's grant; null for a client-credentials token (the app acting for itself). */
  grant: OauthGrant | null;
  workspace: Workspace;
  scopes: OAuthScope[];
  expiresAt: string;
}

/** The OAuth authorization server's storage: apps, codes, grants and access tokens (secrets only as hashes). */
export interface OAuthStore {
  findClient(appId: string): Promise<OAuthClientRecord | undefined>;
  saveCode(code: StoredAuthorizationCode): Promise<void>;
  /** The code unless it was used. */
  findCode(codeHash: string): Promise<StoredAuthorizationCode | undefined>;
  /** Marks the code used; false when it already was (so a code is exchanged at most once). */
  consumeCode(codeHash: string): Promise<boolean>;
  /** Binds a used code to the grant its exchange created; false when the code was refused meanwhile. */
  bindCodeToGrant(codeHash: string, grantId: string): Promise<boolean>;
  /**
   * A used code presented again: deletes it and revokes the grant issued from it (RFC 6749 §4.1.2).
   * False when no used code has this hash.
   */
  refuseReusedCode(codeHash: string): Promise<boolean>;
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
  /** A client-credentials token (no end user); drops the app's expired ones. */
  addAppAccessToken(app: { id: string; workspaceId: string }, accessToken: NewAccessToken): Promise<void>;
  findAccessToken(tokenHash: string): Promise<AccessTokenRecord | undefined>;
  /** Revokes the grant: its refresh token and every access token stop working. */
  revokeGrant(grantId: string): Promise<void>;
  deleteAccessToken(tokenHash: string): Promise<void>;
  findUser(workspaceId: string, userId: string): Promise<User | undefined>;
}

/** A browser's sign-in session for the authorization pages, found by its cookie's hash. */
export interface BrowserSession {
  idHash: string;
  workspaceId: string;
  /** Null until the person signs in. */
  userId: string | null;
  csrfSecret: string;
  expiresAt: string;
}

/** An authorization request, checked at the authorization endpoint and waiting for sign-in and consent. */
export interface AuthorizationRequest {
  id: string;
  workspaceId: string;
  appId: string;
  redirectUri: string;
  scopes: OAuthScope[];
  state: string | null;
  codeChallenge: string;
  expiresAt: string;
}

/** The authorization pages' state: browser sessions and pending authorization requests, both expiring. */
export interface OAuthFlowStore {
  createSession(session: BrowserSession): Promise<void>;
  /** The session unless it expired. */
  findSession(idHash: string): Promise<BrowserSession | undefined>;
  deleteSession(idHash: string): Promise<void>;
  createRequest(request: AuthorizationRequest): Promise<void>;
  /** The request unless it expired or was answered. */
  findRequest(id: string): Promise<AuthorizationRequest | undefined>;
  /** Removes the request; false when it was already gone (so a request is answered at most once). */
  takeRequest(id: string): Promise<boolean>;
}

/** A console sign-in's access token, sealed, waiting for the browser tab that signed in. */
export interface ConsoleHandoff {
  idHash: string;
  workspaceId: string;
  browserBindingHash: string;
  sealedToken: string;
  tokenExpiresAt: string;
  /** The handoff's own expiry (60 s), not the token's. */
  expiresAt: string;
}

/** Single-use handoffs of the console's OAuth sign-in. */
export interface ConsoleHandoffStore {
  create(handoff: ConsoleHandoff): Promise<void>;
  /** Removes and returns the handoff unless it is unknown, already taken or expired: it is redeemed at most once. */
  take(idHash: string): Promise<ConsoleHandoff | undefined>;
}

/** Where sign-in finds a user and their password hash (by workspace and email). */
export interface UserCredentialStore {
  findCredentials(
    workspaceId: string,
    email: string,
  ): Promise<{ user: User; passwordHash: string } | undefined>;
}
