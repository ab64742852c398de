import type { Kysely } from 'kysely';
import { parseScopeParameter } from '../../domain/oauth-scopes.ts';
import type { AccessTokenRecord } from '../../engine/ports.ts';
import { fromJson } from '../json-column.ts';
import type { Database } from '../schema.ts';
import { toWorkspace } from './workspace-repository.ts';

/**
 * An access token as a request's credential check needs it: a grant's token (an end user's consent)
 * or a client-credentials token of an app acting for itself. Both are `svc_at_`, so both tables are
 * looked in, grants' first.
 */
export async function findAccessTokenRecord(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<AccessTokenRecord | undefined> {
  return (await findGrantAccessToken(db, tokenHash)) ?? (await findAppAccessToken(db, tokenHash));
}

async function findAppAccessToken(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<AccessTokenRecord | undefined> {
  const row = await db
    .selectFrom('oauth_app_access_tokens')
    .innerJoin('workspaces', 'workspaces.id', 'oauth_app_access_tokens.workspace_id')
    .selectAll('workspaces')
    .select([
      'oauth_app_access_tokens.app_id as token_app_id',
      'oauth_app_access_tokens.scopes as token_scopes',
      'oauth_app_access_tokens.expires_at as token_expires_at',
    ])
    .where('oauth_app_access_tokens.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    appId: row.token_app_id,
    grant: null,
    workspace: toWorkspace(row),
    scopes: parseScopeParameter(row.token_scopes).scopes,
    expiresAt: row.token_expires_at,
  };
}

async function findGrantAccessToken(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<AccessTokenRecord | undefined> {
  const row = await db
    .selectFrom('oauth_access_tokens')
    .innerJoin('oauth_grants', 'oauth_grants.id', 'oauth_access_tokens.grant_id')
    .innerJoin('workspaces', 'workspaces.id', 'oauth_grants.workspace_id')
    .selectAll('workspaces')
    .select([
      'oauth_access_tokens.expires_at as token_expires_at',
      'oauth_access_tokens.scopes as token_scopes',
      'oauth_grants.id as grant_id',
      'oauth_grants.app_id as grant_app_id',
      'oauth_grants.user_id as grant_user_id',
      'oauth_grants.scopes as grant_scopes',
      'oauth_grants.agent_ids as grant_agent_ids',
      'oauth_grants.created_at as grant_created_at',
      'oauth_grants.revoked_at as grant_revoked_at',
    ])
    .where('oauth_access_tokens.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    appId: row.grant_app_id,
    grant: {
      id: row.grant_id,
      workspaceId: row.id,
      appId: row.grant_app_id,
      userId: row.grant_user_id,
      scopes: parseScopeParameter(row.grant_scopes).scopes,
      agentIds: fromJson<string[]>(row.grant_agent_ids),
      createdAt: row.grant_created_at,
      revokedAt: row.grant_revoked_at,
    },
    workspace: toWorkspace(row),
    scopes: parseScopeParameter(row.token_scopes).scopes,
    expiresAt: row.token_expires_at,
  };
}
