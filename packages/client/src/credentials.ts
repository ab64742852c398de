/** The tokens of an OAuth grant, as the client holds them and reports them to `onTokens`. */
export interface OAuthTokens {
  /** `svc_at_…` */
  accessToken: string;
  /** `svc_rt_…`: persistent and non-rotating; persist it. */
  refreshToken: string;
  /** When the access token expires, when known (tokens live 1 hour). */
  expiresAt?: Date;
  /** The granted scopes (space-separated), when the token endpoint reported them. */
  scope?: string;
}

/** An OAuth credential: the client refreshes the access token when it expires or is refused. */
export interface OAuthCredential {
  accessToken: string;
  refreshToken: string;
  clientId: string;
  clientSecret: string;
  /** Epoch milliseconds or a Date: the client refreshes shortly before it. */
  expiresAt?: Date | number;
  /** The token endpoint; discovered from `/.well-known/oauth-authorization-server` when absent. */
  tokenUrl?: string;
  /** How the client authenticates at the token endpoint (default `client_secret_basic`). */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
  /** Called after every refresh with the new tokens: persist them here. */
  onTokens?(tokens: OAuthTokens): void | Promise<void>;
}

/** A workspace API key (`svc_…`) or an OAuth credential. */
export type Credential = string | OAuthCredential;

/** What the HTTP layer asks of a credential: the header value now, and whether a 401 is worth a retry. */
export interface Authorizer {
  /** The bearer token to send (refreshing first when it is about to expire). */
  token(signal?: AbortSignal): Promise<string>;
  /**
   * Called after a 401 for a request sent with `rejected`: resolves true when a new token is available
   * (the request may be sent again once), false when retrying cannot help.
   */
  renewAfter(rejected: string, signal?: AbortSignal): Promise<boolean>;
}

/** An API key never changes: a 401 is final. */
export function apiKeyAuthorizer(key: string): Authorizer {
  return {
    token: () => Promise.resolve(key),
    renewAfter: () => Promise.resolve(false),
  };
}
