import OAuth2Server from '@node-oauth/oauth2-server';
import type { OAuthScope } from '../../domain/oauth-scopes.ts';
import type { OAuthStore } from '../../engine/ports.ts';
import { AuthorizationCodeGrant } from './authorization-code-grant.ts';
import {
  authenticateOAuthClient,
  type AuthenticatedClient,
  type ClientRefusal,
} from './client-authentication.ts';
import { oauthModel, type OAuthUser } from './oauth-model.ts';
import {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  AUTHORIZATION_CODE_LIFETIME_SECONDS,
  OAUTH_REFRESH_TOKEN_PREFIX,
  hashSecret,
} from './token-secrets.ts';

/** A token-endpoint or revocation request as the HTTP layer hands it over. */
export interface EndpointRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

export interface EndpointResponse {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown> | undefined;
}

/** What consent approves: the checked authorization request and who approved it, for which agents. */
export interface ApprovedAuthorization {
  clientId: string;
  redirectUri: string;
  scopes: OAuthScope[];
  state: string | null;
  codeChallenge: string;
  userId: string;
  agentIds: readonly string[];
}

/** A code the service exchanges itself (the console's callback). */
export interface OwnCodeExchange {
  clientId: string;
  code: string;
  codeVerifier: string;
  redirectUri: string;
}

/**
 * The authorization server: `@node-oauth/oauth2-server` issues codes and tokens (authorization code
 * with PKCE, refresh without rotation, client credentials) on our storage; client authentication is
 * checked first (so that it is answered as RFC 6749 §5.2 asks, and so that the token endpoint can
 * meter the client before any grant work); revocation (RFC 7009) is ours, as the library has none.
 */
export class AuthorizationServer {
  readonly #store: OAuthStore;
  readonly #codes: OAuth2Server;
  readonly #tokens: OAuth2Server;
  /** The service's own exchanges (the console's callback): PKCE checked, the client's secret waived. */
  readonly #ownExchanges: OAuth2Server;

  constructor(store: OAuthStore) {
    this.#store = store;
    this.#codes = new OAuth2Server({ model: oauthModel(store, { clientAuthentication: 'none' }) });
    this.#tokens = new OAuth2Server({
      model: oauthModel(store, { clientAuthentication: 'secret' }),
      accessTokenLifetime: ACCESS_TOKEN_LIFETIME_SECONDS,
      alwaysIssueNewRefreshToken: false,
      extendedGrantTypes: { authorization_code: AuthorizationCodeGrant },
    });
    this.#ownExchanges = new OAuth2Server({
      model: oauthModel(store, { clientAuthentication: 'none' }),
      accessTokenLifetime: ACCESS_TOKEN_LIFETIME_SECONDS,
      alwaysIssueNewRefreshToken: false,
      requireClientAuthentication: { authorization_code: false },
      extendedGrantTypes: { authorization_code: AuthorizationCodeGrant },
    });
  }

  /** Issues a code for an approved request; returns where to send the browser (the app's redirect URI). */
  async issueCode(approved: ApprovedAuthorization, issuer: string): Promise<string> {
    const query: Record<string, string> = {
      response_type: 'code',
      client_id: approved.clientId,
      redirect_uri: approved.redirectUri,
      scope: approved.scopes.join(' '),
      code_challenge: approved.codeChallenge,
      code_challenge_method: 'S256',
    };
    if (approved.state !== null) query.state = approved.state;
    const user: OAuthUser = { kind: 'end_user', id: approved.userId, agentIds: approved.agentIds };
    const response = new OAuth2Server.Response();
    try {
      await this.#codes.authorize(new OAuth2Server.Request({ method: 'GET', headers: {}, query }), response, {
        authenticateHandler: { handle: async () => user },
        allowEmptyState: true,
        authorizationCodeLifetime: AUTHORIZATION_CODE_LIFETIME_SECONDS,
      });
    } catch (error) {
      // The library has already pointed the response at the redirect URI with the error.
      if (!(error instanceof OAuth2Server.OAuthError) || error instanceof OAuth2Server.InvalidClientError)
        throw error;
    }
    const location = response.get('location') as string | undefined;
    if (!location) throw new Error('the authorization server set no redirect');
    // RFC 9207: the issuer in the response lets the app detect a mix-up between authorization servers.
    const url = new URL(location);
    url.searchParams.set('iss', issuer);
    return url.toString();
  }

  /**
   * The first step of the token and revocation endpoints: the client, authenticated. (The kind of body
   * is the library's to check: a token request in JSON is `invalid_request` once its client is known.)
   */
  async authenticateClient(
    request: EndpointRequest,
  ): Promise<{ ok: true; client: AuthenticatedClient } | { ok: false; response: EndpointResponse }> {
    const authenticated = await authenticateOAuthClient(
      this.#store,
      header(request.headers, 'authorization'),
      request.body,
    );
    if (!authenticated.ok) return { ok: false, response: refusalResponse(authenticated.refusal) };
    const { record, credentials, refusal } = authenticated;
    return { ok: true, client: { record, credentials, refusal } };
  }

  /**
   * The token endpoint, for an authenticated client: `authorization_code` (with `code_verifier`),
   * `refresh_token` and `client_credentials`.
   */
  async token(request: EndpointRequest, client: AuthenticatedClient): Promise<EndpointResponse> {
    // The library authenticates the client again; it gets the decoded credentials in the body, as it
    // reads Basic credentials without undoing their form-encoding (RFC 6749 §2.3.1).
    const { authorization: _basic, ...headers } = flatHeaders(request.headers);
    const body = {
      ...request.body,
      client_id: client.credentials.clientId,
      client_secret: client.credentials.clientSecret,
    };
    const response = new OAuth2Server.Response();
    try {
      await this.#tokens.token(
        new OAuth2Server.Request({ method: request.method, headers, query: {}, body }),
        response,
      );
    } catch (error) {
      if (!(error instanceof OAuth2Server.OAuthError)) throw error;
      if (error instanceof OAuth2Server.ServerError) throw (error as { inner?: unknown }).inner ?? error;
      // The app was deleted since it was authenticated.
      if (error instanceof OAuth2Server.InvalidClientError) return refusalResponse(client.refusal);
      // Built from the error: the library throws some (a non-form body) before writing them to the response.
      return oauthError(error.code, error.name, error.message, stringHeaders(response));
    }
    const issued = {
      ...(response.body as Record<string, unknown>),
      expires_in: ACCESS_TOKEN_LIFETIME_SECONDS,
    };
    return { status: 200, headers: stringHeaders(response), body: issued };
  }

  /**
   * Exchanges a code inside the service, for a redirect URI that is the service's own (the console's
   * callback): the code never left the server's hands except through the browser's redirect, so the
   * app's secret is not asked for; the PKCE verifier, the redirect URI, the code's expiry and single use
   * are checked as at the token endpoint. Only the access token is returned; the grant's refresh token
   * stays unused on the server.
   */
  async exchangeOwnCode(
    exchange: OwnCodeExchange,
  ): Promise<{ ok: true; accessToken: string; expiresAt: Date } | { ok: false; error: string }> {
    const body = {
      grant_type: 'authorization_code',
      client_id: exchange.clientId,
      code: exchange.code,
      code_verifier: exchange.codeVerifier,
      redirect_uri: exchange.redirectUri,
    };
    const headers = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '1' };
    const response = new OAuth2Server.Response();
    try {
      const token = await this.#ownExchanges.token(
        new OAuth2Server.Request({ method: 'POST', headers, query: {}, body }),
        response,
      );
      const expiresAt = token.accessTokenExpiresAt;
      if (!expiresAt) throw new Error('the access token was issued without an expiry');
      return { ok: true, accessToken: token.accessToken, expiresAt };
    } catch (error) {
      if (!(error instanceof OAuth2Server.OAuthError)) throw error;
      if (error instanceof OAuth2Server.ServerError) throw (error as { inner?: unknown }).inner ?? error;
      return { ok: false, error: error.name };
    }
  }

  /**
   * RFC 7009 revocation, for an authenticated client. A refresh token revokes its grant (with every
   * access token of it); an access token revokes itself. Tokens of other clients and unknown tokens
   * are answered 200 all the same.
   */
  async revoke(request: EndpointRequest, { record: client }: AuthenticatedClient): Promise<EndpointResponse> {
    const token = request.body.token;
    if (typeof token !== 'string' || token === '') {
      return oauthError(400, 'invalid_request', 'Missing parameter: `token`');
    }
    const tokenHash = hashSecret(token);
    if (token.startsWith(OAUTH_REFRESH_TOKEN_PREFIX)) {
      const grant = await this.#store.findGrantByRefreshHash(tokenHash);
      if (grant?.appId === client.app.id) await this.#store.revokeGrant(grant.id);
    } else {
      const record = await this.#store.findAccessToken(tokenHash);
      if (record?.appId === client.app.id) await this.#store.deleteAccessToken(tokenHash);
    }
    return { status: 200, headers: { 'cache-control': 'no-store' }, body: undefined };
  }
}

function refusalResponse(refusal: ClientRefusal): EndpointResponse {
  return oauthError(
    refusal.status,
    refusal.error,
    refusal.description,
    refusal.challenge ? { 'www-authenticate': 'Basic realm="oauth"' } : {},
  );
}

function oauthError(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): EndpointResponse {
  return {
    status,
    headers: { 'cache-control': 'no-store', ...headers },
    body: { error, error_description: description },
  };
}

function header(headers: EndpointRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function flatHeaders(headers: EndpointRequest['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function stringHeaders(response: OAuth2Server.Response): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers ?? {}))
    headers[name.toLowerCase()] = String(value);
  return headers;
}
