import type { Kysely, Selectable } from 'kysely';
import { ConflictError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { Pricing, ProviderApi } from '../../domain/model.ts';
import type { ProviderModel, WorkspaceProvider } from '../../domain/offering.ts';
import { fromNullableJson, nowIso, toJson } from '../json-column.ts';
import type { NewWorkspaceProvider, WorkspaceProviderStore } from '../../engine/ports.ts';
import type { Database, ProviderModelsTable, WorkspaceProvidersTable } from '../schema.ts';
import { isUniqueViolation } from '../unique-violation.ts';

export type { NewWorkspaceProvider };

export class WorkspaceProviderRepository implements WorkspaceProviderStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Stores the connection and its models in one transaction; `isDefault` clears the workspace's previous default. */
  async create(input: NewWorkspaceProvider): Promise<WorkspaceProvider> {
    const row: WorkspaceProvidersTable = {
      id: newId('provider'),
      workspace_id: input.workspaceId,
      provider: input.provider,
      api: input.api,
      base_url: input.baseUrl,
      api_key_enc: input.apiKeySealed,
      default_model: input.defaultModel,
      is_default: input.isDefault ? 1 : 0,
      created_at: nowIso(),
    };
    const modelRows: ProviderModelsTable[] = input.models.map((model, position) => ({
      provider_id: row.id,
      workspace_id: input.workspaceId,
      provider: input.provider,
      vendor_model_id: model.vendorModelId,
      label: model.label,
      context_window_tokens: model.contextWindowTokens,
      pricing: model.pricing && toJson(model.pricing),
      position,
    }));
    try {
      await this.#db.transaction().execute(async (trx) => {
        if (input.isDefault) {
          await trx
            .updateTable('workspace_providers')
            .set({ is_default: 0 })
            .where('workspace_id', '=', input.workspaceId)
            .execute();
        }
        await trx.insertInto('workspace_providers').values(row).execute();
        await trx.insertInto('provider_models').values(modelRows).execute();
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ConflictError(
          `the workspace already has a connection for one of these ${input.provider} models (one per provider and vendor model)`,
        );
      }
      throw error;
    }
    return { ...input, id: row.id, createdAt: row.created_at };
  }

  async listByWorkspace(workspaceId: string): Promise<WorkspaceProvider[]> {
    const rows = await this.#db
      .selectFrom('workspace_providers')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const models = await this.#db
      .selectFrom('provider_models')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('position')
      .execute();
    return rows.map((row) =>
      toProvider(
        row,
        models.filter((model) => model.provider_id === row.id),
      ),
    );
  }

  async findById(workspaceId: string, id: string): Promise<WorkspaceProvider | undefined> {
    const row = await this.#db
      .selectFrom('workspace_providers')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    const models = await this.#db
      .selectFrom('provider_models')
      .selectAll()
      .where('provider_id', '=', id)
      .orderBy('position')
      .execute();
    return toProvider(row, models);
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('workspace_providers')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

function toProvider(
  row: Selectable<WorkspaceProvidersTable>,
  models: Selectable<ProviderModelsTable>[],
): WorkspaceProvider {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    provider: row.provider,
    api: row.api as ProviderApi,
    baseUrl: row.base_url,
    apiKeySealed: row.api_key_enc,
    models: models.map(toModel),
    defaultModel: row.default_model,
    isDefault: row.is_default === 1,
    createdAt: row.created_at,
  };
}

function toModel(row: Selectable<ProviderModelsTable>): ProviderModel {
  return {
    vendorModelId: row.vendor_model_id,
    label: row.label,
    contextWindowTokens: row.context_window_tokens,
    pricing: fromNullableJson<Pricing>(row.pricing),
  };
}
