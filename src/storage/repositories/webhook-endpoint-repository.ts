import type { Kysely, Selectable } from 'kysely';
import { newId } from '../../domain/ids.ts';
import type { WebhookEndpoint, WebhookEvent } from '../../domain/webhooks.ts';
import type { NewWebhookEndpoint, WebhookEndpointPatch, WebhookEndpointStore } from '../../engine/ports.ts';
import { fromJson, nowIso, toJson } from '../json-column.ts';
import type { Database, WebhookEndpointsTable } from '../schema.ts';

/** A workspace's webhook endpoints; every read and write is scoped to the workspace. */
export class WebhookEndpointRepository implements WebhookEndpointStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(input: NewWebhookEndpoint): Promise<WebhookEndpoint> {
    const now = nowIso();
    const row = await this.#db
      .insertInto('webhook_endpoints')
      .values({
        id: newId('webhook'),
        workspace_id: input.workspaceId,
        url: input.url,
        events: toJson(input.events),
        description: input.description,
        enabled: input.enabled ? 1 : 0,
        secret_sealed: input.secretSealed,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toEndpoint(row);
  }

  async find(workspaceId: string, id: string): Promise<WebhookEndpoint | undefined> {
    const row = await this.#db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toEndpoint(row);
  }

  async list(workspaceId: string): Promise<WebhookEndpoint[]> {
    const rows = await this.#db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('id')
      .execute();
    return rows.map(toEndpoint);
  }

  async update(
    workspaceId: string,
    id: string,
    patch: WebhookEndpointPatch,
  ): Promise<WebhookEndpoint | undefined> {
    const row = await this.#db
      .updateTable('webhook_endpoints')
      .set({
        ...(patch.url !== undefined && { url: patch.url }),
        ...(patch.events !== undefined && { events: toJson(patch.events) }),
        ...(patch.description !== undefined && { description: patch.description }),
        ...(patch.enabled !== undefined && { enabled: patch.enabled ? 1 : 0 }),
        updated_at: nowIso(),
      })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row && toEndpoint(row);
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    return this.#db.transaction().execute(async (trx) => {
      const owned = await trx
        .selectFrom('webhook_endpoints')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (!owned) return false;
      await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
      await trx.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
      return true;
    });
  }
}

function toEndpoint(row: Selectable<WebhookEndpointsTable>): WebhookEndpoint {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    url: row.url,
    events: fromJson<WebhookEvent[]>(row.events),
    description: row.description,
    enabled: row.enabled === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
