import OAuth2Server from '@node-oauth/oauth2-server';
import { isWellFormedId, newId } from '../../domain/ids.ts';
import { isOAuthScope, parseScopeParameter, type OAuthScope } from '../../domain/oauth-scopes.ts';
import type { OAuthClientRecord, OAuthStore } from '../../engine/ports.ts';
import {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  generateAccessToken,
  generateAuthorizationCode,
  generateRefreshToken,
  hashSecret,
  secretMatches,
} from './token-secrets.ts';

/** An end user, as the library carries them: the agents they allowed and (when refreshing) the grant refreshed. */
export interface EndUser {
  kind: 'end_user';
  id: string;
  agentIds: readonly string[];
  /** Set for a refresh: refresh tokens do not rotate, so the grant's token is the one the client presented. */
  grant?: { id: string; refreshToken: string };
}

/** The library's user object: an end user, or (client credentials) the app acting for itself. */
export type OAuthUser = EndUser | { kind: 'app_itself' };

const APP_ITSELF: OAuthUser = { kind: 'app_itself' };

/** Scopes about the person signed in: a token with no end user is never given them. */
const END_USER_SCOPES: readonly OAuthScope[] = ['svc.identity:read'];

export interface OAuthClient {
  id: string;
  workspaceId: string;
  redirectUris: string[];
  grants: string[];
  /** Whether the workspace's plan includes OAuth applications. */
  oauthApps: boolean;
}

export type OAuthModel = OAuth2Server.AuthorizationCodeModel &
  OAuth2Server.RefreshTokenModel &
  OAuth2Server.ClientCredentialsModel;

/**
 * The model `@node-oauth/oauth2-server` runs on, over our storage. Every app is a confidential client:
 * with `clientAuthentication: 'secret'` (the token endpoint) a client is found only with its secret;
 * the authorization endpoint looks clients up by id alone. Codes, refresh and access tokens are stored
 * as hashes; a grant's refresh token never rotates. A used code is kept so that its second use revokes
 * what the first issued.
 */
export function oauthModel(
  store: OAuthStore,
  options: { clientAuthentication: 'none' | 'secret' },
): OAuthModel {
  const asUser = (user: OAuth2Server.User) => user as OAuthUser;
  const asEndUser = (user: OAuth2Server.User): EndUser => {
    const known = asUser(user);
    if (known.kind !== 'end_user')
      throw new OAuth2Server.ServerError('Server error: an end user was expected');
    return known;
  };
  const asClient = (client: OAuth2Server.Client) => client as unknown as OAuthClient;
  const accessTokenExpiry = () => new Date(Date.now() + ACCESS_TOKEN_LIFETIME_SECONDS * 1000);
  const reusedCode = () =>
    new OAuth2Server.InvalidGrantError(
      'Invalid grant: the authorization code was already used; the tokens issued from it are revoked',
    );

  return {
    async getClient(clientId, clientSecret) {
      if (!isWellFormedId('oauthApp', clientId)) return false;
      const record = await store.findClient(clientId);
      if (!record) return false;
      if (options.clientAuthentication === 'secret') {
        if (!clientSecret || !secretMatches(clientSecret, record.clientSecretHash)) return false;
      }
      return toClient(record);
    },

    generateAuthorizationCode: async () => generateAuthorizationCode(),
    generateAccessToken: async () => generateAccessToken(),
    generateRefreshToken: async () => generateRefreshToken(),

    async getUserFromClient(client) {
      if (!asClient(client).oauthApps) {
        throw new OAuth2Server.UnauthorizedClientError(
          "Unauthorized client: the workspace's plan does not include OAuth applications",
        );
      }
      return APP_ITSELF;
    },

    async validateScope(user, _client, scope) {
      if (asUser(user).kind === 'end_user') {
        if (!scope || scope.length === 0 || !scope.every(isOAuthScope)) return false;
        return scope;
      }
      if (!scope || scope.length === 0) {
        throw new OAuth2Server.InvalidScopeError('Invalid scope: name the scopes the token needs');
      }
      const { scopes, unknown } = parseScopeParameter(scope.join(' '));
      if (unknown.length > 0) {
        throw new OAuth2Server.InvalidScopeError(`Invalid scope: unknown scope ${unknown.join(' ')}`);
      }
      const granted = scopes.filter((name) => !END_USER_SCOPES.includes(name));
      if (granted.length === 0) {
        throw new OAuth2Server.InvalidScopeError(
          `Invalid scope: ${END_USER_SCOPES.join(' ')} needs an end user; name another scope`,
        );
      }
      return granted;
    },

    async saveAuthorizationCode(code, client, user) {
      const oauthClient = asClient(client);
      const oauthUser = asEndUser(user);
      if (!code.codeChallenge || code.codeChallengeMethod !== 'S256') return false;
      await store.saveCode({
        codeHash: hashSecret(code.authorizationCode),
        workspaceId: oauthClient.workspaceId,
        appId: oauthClient.id,
        userId: oauthUser.id,
        redirectUri: code.redirectUri,
        scopes: (code.scope ?? []) as OAuthScope[],
        agentIds: [...oauthUser.agentIds],
        codeChallenge: code.codeChallenge,
        codeChallengeMethod: code.codeChallengeMethod,
        expiresAt: code.expiresAt.toISOString(),
      });
      return { ...code, client, user };
    },

    // RFC 6749 §4.1.2: a code used twice is refused, and what its first use issued is revoked.
    async getAuthorizationCode(authorizationCode) {
      const codeHash = hashSecret(authorizationCode);
      const code = await store.findCode(codeHash);
      if (!code) {
        if (await store.refuseReusedCode(codeHash)) throw reusedCode();
        return false;
      }
      const user: OAuthUser = { kind: 'end_user', id: code.userId, agentIds: code.agentIds };
      return {
        authorizationCode,
        expiresAt: new Date(code.expiresAt),
        redirectUri: code.redirectUri,
        scope: code.scopes,
        client: { id: code.appId, grants: [] },
        user,
        codeChallenge: code.codeChallenge,
        codeChallengeMethod: code.codeChallengeMethod,
      };
    },

    // Marking the row used is what makes a code single-use: of two concurrent exchanges one marks it,
    // and the other is a second use.
    async revokeAuthorizationCode(code) {
      const codeHash = hashSecret(code.authorizationCode);
      if (await store.consumeCode(codeHash)) return true;
      await store.refuseReusedCode(codeHash);
      throw reusedCode();
    },

    async saveToken(token, client, user) {
      const oauthClient = asClient(client);
      const accessTokenExpiresAt = accessTokenExpiry();
      const scopes = (token.scope ?? []) as OAuthScope[];
      const accessToken = {
        hash: hashSecret(token.accessToken),
        scopes,
        expiresAt: accessTokenExpiresAt.toISOString(),
      };
      const issued = { accessToken: token.accessToken, accessTokenExpiresAt, scope: scopes, client, user };
      if (asUser(user).kind === 'app_itself') {
        await store.addAppAccessToken(
          { id: oauthClient.id, workspaceId: oauthClient.workspaceId },
          accessToken,
        );
        return issued;
      }
      const oauthUser = asEndUser(user);
      if (oauthUser.grant) {
        if (!(await store.addAccessToken(oauthUser.grant.id, accessToken))) {
          throw new OAuth2Server.InvalidGrantError('Invalid grant: the refresh token was revoked');
        }
        return { ...issued, refreshToken: oauthUser.grant.refreshToken };
      }
      const { refreshToken, authorizationCode } = token;
      if (!refreshToken || typeof authorizationCode !== 'string') {
        throw new OAuth2Server.ServerError('Server error: a new grant needs its code and a refresh token');
      }
      const grant = await store.createGrant(
        {
          id: newId('oauthGrant'),
          workspaceId: oauthClient.workspaceId,
          appId: oauthClient.id,
          userId: oauthUser.id,
          scopes,
          agentIds: [...oauthUser.agentIds],
        },
        hashSecret(refreshToken),
        accessToken,
      );
      // A second use of the code between its exchange and here has refused it: this grant goes too.
      if (!(await store.bindCodeToGrant(hashSecret(authorizationCode), grant.id))) {
        await store.revokeGrant(grant.id);
        throw reusedCode();
      }
      return { ...issued, refreshToken };
    },

    async getRefreshToken(refreshToken) {
      const grant = await store.findGrantByRefreshHash(hashSecret(refreshToken));
      if (!grant) return false;
      const user: OAuthUser = {
        kind: 'end_user',
        id: grant.userId,
        agentIds: grant.agentIds,
        grant: { id: grant.id, refreshToken },
      };
      return { refreshToken, scope: grant.scopes, client: { id: grant.appId, grants: [] }, user };
    },

    // Called only when refresh tokens rotate, which they do not; kept so the model is complete.
    async revokeToken(token) {
      const grant = await store.findGrantByRefreshHash(hashSecret(token.refreshToken));
      if (grant) await store.revokeGrant(grant.id);
      return grant !== undefined;
    },

    async getAccessToken(accessToken) {
      const record = await store.findAccessToken(hashSecret(accessToken));
      if (!record || (record.grant?.revokedAt ?? null) !== null) return false;
      const user: OAuthUser = record.grant
        ? { kind: 'end_user', id: record.grant.userId, agentIds: record.grant.agentIds }
        : APP_ITSELF;
      return {
        accessToken,
        accessTokenExpiresAt: new Date(record.expiresAt),
        scope: record.scopes,
        client: { id: record.appId, grants: [] },
        user,
      };
    },
  };
}

function toClient(record: OAuthClientRecord): OAuth2Server.Client {
  const client: OAuthClient = {
    id: record.app.id,
    workspaceId: record.workspace.id,
    redirectUris: record.app.redirectUris,
    grants: ['authorization_code', 'refresh_token', 'client_credentials'],
    oauthApps: record.workspace.features.oauthApps,
  };
  return client;
}
