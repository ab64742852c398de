import type { Kysely, Selectable } from 'kysely';
import type { ApiKey, ApiKeyUsage } from '../../domain/api-key.ts';
import { newId } from '../../domain/ids.ts';
import type { Workspace } from '../../domain/workspace.ts';
import { fromJson, nowIso, toJson } from '../json-column.ts';
import { PreparedQuery, type Param } from '../prepared-query.ts';
import type { ApiKeyAdminStore, NewApiKey } from '../../engine/ports.ts';
import type { ApiKeysTable, Database } from '../schema.ts';
import { toWorkspace } from './workspace-repository.ts';

export type { NewApiKey };

export class ApiKeyRepository implements ApiKeyAdminStore {
  readonly #db: Kysely<Database>;
  /** Every authenticated request runs it: compiled once (see PreparedQuery). */
  readonly #findByHash;

  constructor(db: Kysely<Database>) {
    this.#db = db;
    this.#findByHash = new PreparedQuery((param: Param<'keyHash'>) =>
      db
        .selectFrom('api_keys')
        .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
        .selectAll('api_keys')
        .select([
          'workspaces.slug as ws_slug',
          'workspaces.name as ws_name',
          'workspaces.features as ws_features',
          'workspaces.rate_limits as ws_rate_limits',
          'workspaces.max_concurrent_runs as ws_max_concurrent_runs',
          'workspaces.created_at as ws_created_at',
          'workspaces.updated_at as ws_updated_at',
        ])
        .where('api_keys.key_hash', '=', param<string>('keyHash')),
    );
  }

  async create(input: NewApiKey): Promise<ApiKey> {
    const row: ApiKeysTable = {
      id: newId('apiKey'),
      workspace_id: input.workspaceId,
      name: input.name,
      key_hash: input.keyHash,
      key_prefix: input.keyPrefix,
      usage: input.usage,
      agent_ids: toJson(input.agentIds),
      created_at: nowIso(),
      expires_at: input.expiresAt,
      revoked_at: null,
      last_used_at: null,
    };
    await this.#db.insertInto('api_keys').values(row).execute();
    return toApiKey(row);
  }

  /** The key with this hash and its workspace (one query), revoked or not: the caller decides what a revoked key means. */
  async findByHash(keyHash: string): Promise<{ apiKey: ApiKey; workspace: Workspace } | undefined> {
    const row = await this.#findByHash.first(this.#db, { keyHash });
    if (!row) return undefined;
    return {
      apiKey: toApiKey(row),
      workspace: toWorkspace({
        id: row.workspace_id,
        slug: row.ws_slug,
        name: row.ws_name,
        features: row.ws_features,
        rate_limits: row.ws_rate_limits,
        max_concurrent_runs: row.ws_max_concurrent_runs,
        created_at: row.ws_created_at,
        updated_at: row.ws_updated_at,
      }),
    };
  }

  async findById(workspaceId: string, id: string): Promise<ApiKey | undefined> {
    const row = await this.#db
      .selectFrom('api_keys')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toApiKey(row);
  }

  async listByWorkspace(workspaceId: string): Promise<ApiKey[]> {
    const rows = await this.#db
      .selectFrom('api_keys')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toApiKey);
  }

  /** Marks the key revoked; false when the workspace has no such key or it was already revoked. */
  async revoke(workspaceId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('api_keys')
      .set({ revoked_at: nowIso() })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async touchLastUsed(id: string, at: string): Promise<void> {
    await this.#db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }
}

function toApiKey(row: Selectable<ApiKeysTable>): ApiKey {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    keyPrefix: row.key_prefix,
    usage: row.usage as ApiKeyUsage,
    agentIds: fromJson<string[]>(row.agent_ids),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}
