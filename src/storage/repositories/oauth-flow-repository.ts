import type { Kysely, Selectable } from 'kysely';
import { parseScopeParameter } from '../../domain/oauth-scopes.ts';
import type { AuthorizationRequest, BrowserSession, OAuthFlowStore } from '../../engine/ports.ts';
import { nowIso } from '../json-column.ts';
import type { Database, OauthAuthorizationRequestsTable, OauthBrowserSessionsTable } from '../schema.ts';

/** The authorization pages' state: browser sessions and pending authorization requests, both expiring. */
export type { AuthorizationRequest, BrowserSession };

export class OAuthFlowRepository implements OAuthFlowStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async createSession(session: BrowserSession): Promise<void> {
    const now = nowIso();
    await this.#db.deleteFrom('oauth_browser_sessions').where('expires_at', '<', now).execute();
    await this.#db
      .insertInto('oauth_browser_sessions')
      .values({
        id_hash: session.idHash,
        workspace_id: session.workspaceId,
        user_id: session.userId,
        csrf_secret: session.csrfSecret,
        created_at: now,
        expires_at: session.expiresAt,
      })
      .execute();
  }

  /** The session unless it expired. */
  async findSession(idHash: string): Promise<BrowserSession | undefined> {
    const row = await this.#db
      .selectFrom('oauth_browser_sessions')
      .selectAll()
      .where('id_hash', '=', idHash)
      .where('expires_at', '>', nowIso())
      .executeTakeFirst();
    return row && toSession(row);
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.#db.deleteFrom('oauth_browser_sessions').where('id_hash', '=', idHash).execute();
  }

  async createRequest(request: AuthorizationRequest): Promise<void> {
    const now = nowIso();
    await this.#db.deleteFrom('oauth_authorization_requests').where('expires_at', '<', now).execute();
    await this.#db
      .insertInto('oauth_authorization_requests')
      .values({
        id: request.id,
        workspace_id: request.workspaceId,
        app_id: request.appId,
        redirect_uri: request.redirectUri,
        scopes: request.scopes.join(' '),
        state: request.state,
        code_challenge: request.codeChallenge,
        created_at: now,
        expires_at: request.expiresAt,
      })
      .execute();
  }

  /** The request unless it expired or was answered. */
  async findRequest(id: string): Promise<AuthorizationRequest | undefined> {
    const row = await this.#db
      .selectFrom('oauth_authorization_requests')
      .selectAll()
      .where('id', '=', id)
      .where('expires_at', '>', nowIso())
      .executeTakeFirst();
    return row && toRequest(row);
  }

  /** Removes the request once answered; false when another submission answered it first. */
  async takeRequest(id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('oauth_authorization_requests')
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

function toSession(row: Selectable<OauthBrowserSessionsTable>): BrowserSession {
  return {
    idHash: row.id_hash,
    workspaceId: row.workspace_id,
    userId: row.user_id,
    csrfSecret: row.csrf_secret,
    expiresAt: row.expires_at,
  };
}

function toRequest(row: Selectable<OauthAuthorizationRequestsTable>): AuthorizationRequest {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    appId: row.app_id,
    redirectUri: row.redirect_uri,
    scopes: parseScopeParameter(row.scopes).scopes,
    state: row.state,
    codeChallenge: row.code_challenge,
    expiresAt: row.expires_at,
  };
}
