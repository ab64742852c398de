import type { Kysely, Selectable } from 'kysely';
import type { OauthGrant, User } from '../../domain/identity.ts';
import { parseScopeParameter } from '../../domain/oauth-scopes.ts';
import type {
  AccessTokenRecord,
  NewAccessToken,
  OAuthClientRecord,
  OAuthGrantAdminStore,
  OAuthStore,
  StoredAuthorizationCode,
} from '../../engine/ports.ts';
import { fromJson, nowIso, toJson } from '../json-column.ts';
import type { Database, OauthAuthorizationCodesTable, OauthGrantsTable } from '../schema.ts';
import { findAccessTokenRecord } from './oauth-access-token-lookup.ts';
import { toWorkspace } from './workspace-repository.ts';

/** The authorization server's storage: clients, one-time codes, grants with their refresh token, access tokens. */
export class OAuthRepository implements OAuthStore, OAuthGrantAdminStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async findClient(appId: string): Promise<OAuthClientRecord | undefined> {
    const row = await this.#db
      .selectFrom('oauth_apps')
      .innerJoin('workspaces', 'workspaces.id', 'oauth_apps.workspace_id')
      .selectAll('workspaces')
      .select([
        'oauth_apps.id as app_id',
        'oauth_apps.name as app_name',
        'oauth_apps.redirect_uris as app_redirect_uris',
        'oauth_apps.client_secret_hash as app_client_secret_hash',
        'oauth_apps.created_at as app_created_at',
      ])
      .where('oauth_apps.id', '=', appId)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      app: {
        id: row.app_id,
        workspaceId: row.id,
        name: row.app_name,
        redirectUris: fromJson<string[]>(row.app_redirect_uris),
        createdAt: row.app_created_at,
      },
      workspace: toWorkspace(row),
      clientSecretHash: row.app_client_secret_hash,
    };
  }

  async saveCode(code: StoredAuthorizationCode): Promise<void> {
    const now = nowIso();
    // A code that created a grant stays with it: a late second use still revokes the grant.
    await this.#db
      .deleteFrom('oauth_authorization_codes')
      .where('expires_at', '<', now)
      .where('grant_id', 'is', null)
      .execute();
    await this.#db
      .insertInto('oauth_authorization_codes')
      .values({
        code_hash: code.codeHash,
        workspace_id: code.workspaceId,
        app_id: code.appId,
        user_id: code.userId,
        redirect_uri: code.redirectUri,
        scopes: code.scopes.join(' '),
        agent_ids: toJson(code.agentIds),
        code_challenge: code.codeChallenge,
        code_challenge_method: code.codeChallengeMethod,
        created_at: now,
        expires_at: code.expiresAt,
      })
      .execute();
  }

  async findCode(codeHash: string): Promise<StoredAuthorizationCode | undefined> {
    const row = await this.#db
      .selectFrom('oauth_authorization_codes')
      .selectAll()
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return row && toCode(row);
  }

  async consumeCode(codeHash: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('oauth_authorization_codes')
      .set({ used_at: nowIso() })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  // The binding and the refusal each take the code's row in one statement: whichever comes second
  // sees the other (a refused code binds nothing; a bound grant is found and revoked).
  async bindCodeToGrant(codeHash: string, grantId: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('oauth_authorization_codes')
      .set({ grant_id: grantId })
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is not', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  refuseReusedCode(codeHash: string): Promise<boolean> {
    return this.#db.transaction().execute(async (trx) => {
      const refused = await trx
        .deleteFrom('oauth_authorization_codes')
        .where('code_hash', '=', codeHash)
        .where('used_at', 'is not', null)
        .returning('grant_id')
        .executeTakeFirst();
      if (!refused) return false;
      if (refused.grant_id !== null) await revokeGrantWith(trx, refused.grant_id);
      return true;
    });
  }

  async addAppAccessToken(app: { id: string; workspaceId: string }, accessToken: NewAccessToken) {
    const now = nowIso();
    await this.#db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('oauth_app_access_tokens')
        .where('app_id', '=', app.id)
        .where('expires_at', '<', now)
        .execute();
      await trx
        .insertInto('oauth_app_access_tokens')
        .values({
          token_hash: accessToken.hash,
          workspace_id: app.workspaceId,
          app_id: app.id,
          scopes: accessToken.scopes.join(' '),
          created_at: now,
          expires_at: accessToken.expiresAt,
        })
        .execute();
    });
  }

  async createGrant(
    grant: Omit<OauthGrant, 'createdAt' | 'revokedAt'>,
    refreshTokenHash: string,
    accessToken: NewAccessToken,
  ): Promise<OauthGrant> {
    const createdAt = nowIso();
    await this.#db.transaction().execute(async (trx) => {
      await trx
        .insertInto('oauth_grants')
        .values({
          id: grant.id,
          workspace_id: grant.workspaceId,
          app_id: grant.appId,
          user_id: grant.userId,
          scopes: grant.scopes.join(' '),
          agent_ids: toJson(grant.agentIds),
          refresh_token_hash: refreshTokenHash,
          created_at: createdAt,
          revoked_at: null,
        })
        .execute();
      await trx
        .insertInto('oauth_access_tokens')
        .values({
          token_hash: accessToken.hash,
          grant_id: grant.id,
          scopes: accessToken.scopes.join(' '),
          created_at: createdAt,
          expires_at: accessToken.expiresAt,
        })
        .execute();
    });
    return { ...grant, createdAt, revokedAt: null };
  }

  async findGrantByRefreshHash(refreshTokenHash: string): Promise<OauthGrant | undefined> {
    const row = await this.#db
      .selectFrom('oauth_grants')
      .selectAll()
      .where('refresh_token_hash', '=', refreshTokenHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return row && toGrant(row);
  }

  async addAccessToken(grantId: string, accessToken: NewAccessToken): Promise<boolean> {
    const now = nowIso();
    return this.#db.transaction().execute(async (trx) => {
      const live = await trx
        .selectFrom('oauth_grants')
        .select('id')
        .where('id', '=', grantId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (!live) return false;
      await trx
        .deleteFrom('oauth_access_tokens')
        .where('grant_id', '=', grantId)
        .where('expires_at', '<', now)
        .execute();
      await trx
        .insertInto('oauth_access_tokens')
        .values({
          token_hash: accessToken.hash,
          grant_id: grantId,
          scopes: accessToken.scopes.join(' '),
          created_at: now,
          expires_at: accessToken.expiresAt,
        })
        .execute();
      return true;
    });
  }

  findAccessToken(tokenHash: string): Promise<AccessTokenRecord | undefined> {
    return findAccessTokenRecord(this.#db, tokenHash);
  }

  async revokeGrant(grantId: string): Promise<void> {
    await this.#db.transaction().execute((trx) => revokeGrantWith(trx, grantId));
  }

  async deleteAccessToken(tokenHash: string): Promise<void> {
    await this.#db.deleteFrom('oauth_access_tokens').where('token_hash', '=', tokenHash).execute();
    await this.#db.deleteFrom('oauth_app_access_tokens').where('token_hash', '=', tokenHash).execute();
  }

  async findUser(workspaceId: string, userId: string): Promise<User | undefined> {
    const row = await this.#db
      .selectFrom('users')
      .select(['id', 'workspace_id', 'email', 'name', 'created_at'])
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', userId)
      .executeTakeFirst();
    return (
      row && {
        id: row.id,
        workspaceId: row.workspace_id,
        email: row.email,
        name: row.name,
        createdAt: row.created_at,
      }
    );
  }

  /** The workspace's grants, newest first (the admin API's listing). */
  async listGrants(workspaceId: string): Promise<OauthGrant[]> {
    const rows = await this.#db
      .selectFrom('oauth_grants')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toGrant);
  }

  /** Deletes a grant of the workspace with its tokens; false when there is none. */
  async deleteGrant(workspaceId: string, grantId: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('oauth_grants')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', grantId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

/** Revokes the grant: its refresh token stops working and its access tokens are deleted. */
async function revokeGrantWith(db: Kysely<Database>, grantId: string): Promise<void> {
  await db
    .updateTable('oauth_grants')
    .set({ revoked_at: nowIso() })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .execute();
  await db.deleteFrom('oauth_access_tokens').where('grant_id', '=', grantId).execute();
}

function toCode(row: Selectable<OauthAuthorizationCodesTable>): StoredAuthorizationCode {
  return {
    codeHash: row.code_hash,
    workspaceId: row.workspace_id,
    appId: row.app_id,
    userId: row.user_id,
    redirectUri: row.redirect_uri,
    scopes: parseScopeParameter(row.scopes).scopes,
    agentIds: fromJson<string[]>(row.agent_ids),
    codeChallenge: row.code_challenge,
    codeChallengeMethod: row.code_challenge_method,
    expiresAt: row.expires_at,
  };
}

function toGrant(row: Selectable<OauthGrantsTable>): OauthGrant {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    appId: row.app_id,
    userId: row.user_id,
    scopes: parseScopeParameter(row.scopes).scopes,
    agentIds: fromJson<string[]>(row.agent_ids),
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}
