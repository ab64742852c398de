import OAuth2Server from '@node-oauth/oauth2-server';
import type { OAuthScope } from '../../domain/oauth-scopes.ts';
import type { OAuthStore } from '../../engine/ports.ts';
import { clientCredentialsOf } from './client-credentials.ts';
import { oauthModel, type OAuthUser } from './oauth-model.ts';
import {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  AUTHORIZATION_CODE_LIFETIME_SECONDS,
  OAUTH_REFRESH_TOKEN_PREFIX,
  hashSecret,
  secretMatches,
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

/**
 * The authorization server: `@node-oauth/oauth2-server` issues codes and tokens (authorization code
 * with PKCE, refresh without rotation) on our storage; revocation (RFC 7009) is ours, as the library
 * has none.
 */
export class AuthorizationServer {
  readonly #store: OAuthStore;
  readonly #codes: OAuth2Server;
  readonly #tokens: OAuth2Server;

  constructor(store: OAuthStore) {
    this.#store = store;
    this.#codes = new OAuth2Server({ model: oauthModel(store, { clientAuthentication: 'none' }) });
    this.#tokens = new OAuth2Server({
      model: oauthModel(store, { clientAuthentication: 'secret' }),
      accessTokenLifetime: ACCESS_TOKEN_LIFETIME_SECONDS,
      alwaysIssueNewRefreshToken: false,
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
    const user: OAuthUser = { id: approved.userId, agentIds: approved.agentIds };
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

  /** The token endpoint: `authorization_code` (with `code_verifier`) and `refresh_token`, client secret required. */
  async token(request: EndpointRequest): Promise<EndpointResponse> {
    const authorization = header(request.headers, 'authorization');
    const credentials = clientCredentialsOf(authorization, request.body);
    if (!credentials) return clientAuthenticationRequired(authorization);
    // The library reads Basic credentials without undoing their form-encoding (RFC 6749 §2.3.1: `_` may
    // arrive as `%5F`), so it gets the decoded credentials in the body instead.
    const { authorization: _basic, ...headers } = flatHeaders(request.headers);
    const body = {
      ...request.body,
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
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
      if (authorization && error instanceof OAuth2Server.InvalidClientError) {
        return oauthError(401, 'invalid_client', error.message, {
          'www-authenticate': 'Basic realm="oauth"',
        });
      }
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
   * RFC 7009 revocation. A refresh token revokes its grant (with every access token of it); an access
   * token revokes itself. Tokens of other clients and unknown tokens are answered 200 all the same.
   */
  async revoke(request: EndpointRequest): Promise<EndpointResponse> {
    const authorization = header(request.headers, 'authorization');
    const credentials = clientCredentialsOf(authorization, request.body);
    if (!credentials) return clientAuthenticationRequired(authorization);
    const client = await this.#store.findClient(credentials.clientId);
    if (!client || !secretMatches(credentials.clientSecret, client.clientSecretHash)) {
      return oauthError(401, 'invalid_client', 'Invalid client: client authentication failed', {
        'www-authenticate': 'Basic realm="oauth"',
      });
    }
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
      if (record?.grant.appId === client.app.id) await this.#store.deleteAccessToken(tokenHash);
    }
    return { status: 200, headers: { 'cache-control': 'no-store' }, body: undefined };
  }
}

function clientAuthenticationRequired(authorization: string | undefined): EndpointResponse {
  return oauthError(
    401,
    'invalid_client',
    authorization
      ? 'Invalid client: the Authorization header is not Basic client credentials'
      : 'Invalid client: every app is a confidential client; send client_id and client_secret (Basic or in the body)',
    { 'www-authenticate': 'Basic realm="oauth"' },
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
