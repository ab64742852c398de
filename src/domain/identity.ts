import type { OAuthScope } from './oauth-scopes.ts';

/** An end user of a workspace who can sign in to authorize OAuth apps. */
export interface User {
  id: string;
  workspaceId: string;
  email: string;
  name: string | null;
  createdAt: string;
}

/** A confidential OAuth client registered for a workspace; its id is the OAuth `client_id`. */
export interface OauthApp {
  id: string;
  workspaceId: string;
  name: string;
  redirectUris: string[];
  createdAt: string;
}

/**
 * What a user allowed an app at consent: its scopes and the agents its tokens may run (empty: every
 * non-system agent). The grant holds the one persistent refresh token; revoking or deleting it ends
 * the app's access.
 */
export interface OauthGrant {
  id: string;
  workspaceId: string;
  appId: string;
  userId: string;
  scopes: OAuthScope[];
  agentIds: string[];
  createdAt: string;
  revokedAt: string | null;
}
