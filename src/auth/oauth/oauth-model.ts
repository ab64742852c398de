import OAuth2Server from '@node-oauth/oauth2-server';
import { isWellFormedId, newId } from '../../domain/ids.ts';
import { isOAuthScope, type OAuthScope } from '../../domain/oauth-scopes.ts';
import type { OAuthClientRecord, OAuthStore } from '../../engine/ports.ts';
import {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  generateAccessToken,
  generateAuthorizationCode,
  generateRefreshToken,
  hashSecret,
  secretMatches,
} from './token-secrets.ts';

/** The library's user object: the person, the agents they allowed, and (when refreshing) the grant refreshed. */
export interface OAuthUser {
  id: string;
  agentIds: readonly string[];
  /** Set for a refresh: refresh tokens do not rotate, so the grant's token is the one the client presented. */
  grant?: { id: string; refreshToken: string };
}

export interface OAuthClient {
  id: string;
  workspaceId: string;
  redirectUris: string[];
  grants: string[];
}

export type OAuthModel = OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel;

/**
 * The model `@node-oauth/oauth2-server` runs on, over our storage. Every app is a confidential client:
 * with `clientAuthentication: 'secret'` (the token endpoint) a client is found only with its secret;
 * the authorization endpoint looks clients up by id alone. Codes, refresh and access tokens are stored
 * as hashes; a grant's refresh token never rotates.
 */
export function oauthModel(
  store: OAuthStore,
  options: { clientAuthentication: 'none' | 'secret' },
): OAuthModel {
  const asUser = (user: OAuth2Server.User) => user as OAuthUser;
  const asClient = (client: OAuth2Server.Client) => client as unknown as OAuthClient;
  const accessTokenExpiry = () => new Date(Date.now() + ACCESS_TOKEN_LIFETIME_SECONDS * 1000);

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

    async validateScope(_user, _client, scope) {
      if (!scope || scope.length === 0 || !scope.every(isOAuthScope)) return false;
      return scope;
    },

    async saveAuthorizationCode(code, client, user) {
      const oauthClient = asClient(client);
      const oauthUser = asUser(user);
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

    async getAuthorizationCode(authorizationCode) {
      const code = await store.findCode(hashSecret(authorizationCode));
      if (!code) return false;
      const user: OAuthUser = { id: code.userId, agentIds: code.agentIds };
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

    // Deleting the row is what makes a code single-use: of two concurrent exchanges one deletes it.
    revokeAuthorizationCode: async (code) => store.consumeCode(hashSecret(code.authorizationCode)),

    async saveToken(token, client, user) {
      const oauthClient = asClient(client);
      const oauthUser = asUser(user);
      const accessTokenExpiresAt = accessTokenExpiry();
      const scopes = (token.scope ?? []) as OAuthScope[];
      const accessToken = {
        hash: hashSecret(token.accessToken),
        scopes,
        expiresAt: accessTokenExpiresAt.toISOString(),
      };
      if (oauthUser.grant) {
        if (!(await store.addAccessToken(oauthUser.grant.id, accessToken))) {
          throw new OAuth2Server.InvalidGrantError('Invalid grant: the refresh token was revoked');
        }
        const { refreshToken } = oauthUser.grant;
        return {
          accessToken: token.accessToken,
          accessTokenExpiresAt,
          refreshToken,
          scope: scopes,
          client,
          user,
        };
      }
      if (!token.refreshToken) throw new OAuth2Server.ServerError('Server error: no refresh token to store');
      await store.createGrant(
        {
          id: newId('oauthGrant'),
          workspaceId: oauthClient.workspaceId,
          appId: oauthClient.id,
          userId: oauthUser.id,
          scopes,
          agentIds: [...oauthUser.agentIds],
        },
        hashSecret(token.refreshToken),
        accessToken,
      );
      return {
        accessToken: token.accessToken,
        accessTokenExpiresAt,
        refreshToken: token.refreshToken,
        scope: scopes,
        client,
        user,
      };
    },

    async getRefreshToken(refreshToken) {
      const grant = await store.findGrantByRefreshHash(hashSecret(refreshToken));
      if (!grant) return false;
      const user: OAuthUser = {
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
      if (!record || record.grant.revokedAt !== null) return false;
      const user: OAuthUser = { id: record.grant.userId, agentIds: record.grant.agentIds };
      return {
        accessToken,
        accessTokenExpiresAt: new Date(record.expiresAt),
        scope: record.scopes,
        client: { id: record.grant.appId, grants: [] },
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
    grants: ['authorization_code', 'refresh_token'],
  };
  return client;
}
