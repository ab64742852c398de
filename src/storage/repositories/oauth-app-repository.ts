import type { Kysely, Selectable } from 'kysely';
import { newId } from '../../domain/ids.ts';
import type { OauthApp } from '../../domain/identity.ts';
import type { NewOAuthApp, OAuthAppStore } from '../../engine/ports.ts';
import { fromJson, nowIso, toJson } from '../json-column.ts';
import type { Database, OauthAppsTable } from '../schema.ts';

export class OauthAppRepository implements OAuthAppStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(input: NewOAuthApp): Promise<OauthApp> {
    const row: OauthAppsTable = {
      id: newId('oauthApp'),
      workspace_id: input.workspaceId,
      name: input.name,
      client_secret_hash: input.clientSecretHash,
      redirect_uris: toJson(input.redirectUris),
      created_at: nowIso(),
    };
    await this.#db.insertInto('oauth_apps').values(row).execute();
    return toApp(row);
  }

  async listByWorkspace(workspaceId: string): Promise<OauthApp[]> {
    const rows = await this.#db
      .selectFrom('oauth_apps')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toApp);
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('oauth_apps')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

function toApp(row: Selectable<OauthAppsTable>): OauthApp {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    redirectUris: fromJson<string[]>(row.redirect_uris),
    createdAt: row.created_at,
  };
}
