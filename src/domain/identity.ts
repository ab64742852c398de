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
