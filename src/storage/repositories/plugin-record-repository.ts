import type { Kysely } from 'kysely';
import type { PluginRecord, PluginRecordScope, PluginRecordStore } from '../../engine/ports.ts';
import type { Database } from '../schema.ts';

export class PluginRecordRepository implements PluginRecordStore {
  readonly #db: Kysely<Database>;
  /** The last write time this process used (epoch ms). */
  #lastWriteMs = 0;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Inserts the record or replaces its value; either way it becomes the newest. */
  async put(scope: PluginRecordScope, key: string, value: string): Promise<void> {
    const updatedAt = this.#nextWriteTime();
    await this.#db
      .insertInto('plugin_records')
      .values({
        workspace_id: scope.workspaceId,
        agent_id: scope.agentId,
        namespace: scope.namespace,
        key,
        value,
        updated_at: updatedAt,
      })
      .onConflict((conflict) =>
        conflict
          .columns(['workspace_id', 'agent_id', 'namespace', 'key'])
          .doUpdateSet({ value, updated_at: updatedAt }),
      )
      .execute();
  }

  async get(scope: PluginRecordScope, key: string): Promise<PluginRecord | undefined> {
    return this.#db
      .selectFrom('plugin_records')
      .select(['key', 'value', 'updated_at as updatedAt'])
      .where('workspace_id', '=', scope.workspaceId)
      .where('agent_id', '=', scope.agentId)
      .where('namespace', '=', scope.namespace)
      .where('key', '=', key)
      .executeTakeFirst();
  }

  /** Newest first; records of one instant newest key first (time-ordered keys keep their order). */
  async list(scope: PluginRecordScope, limit: number): Promise<PluginRecord[]> {
    return this.#db
      .selectFrom('plugin_records')
      .select(['key', 'value', 'updated_at as updatedAt'])
      .where('workspace_id', '=', scope.workspaceId)
      .where('agent_id', '=', scope.agentId)
      .where('namespace', '=', scope.namespace)
      .orderBy('updated_at', 'desc')
      .orderBy('key', 'desc')
      .limit(limit)
      .execute();
  }

  async delete(scope: PluginRecordScope, key: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('plugin_records')
      .where('workspace_id', '=', scope.workspaceId)
      .where('agent_id', '=', scope.agentId)
      .where('namespace', '=', scope.namespace)
      .where('key', '=', key)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /**
   * Lists are newest first by write time: two writes in the same millisecond would tie and come back
   * in key order, so this process's writes get strictly increasing times.
   */
  #nextWriteTime(): string {
    this.#lastWriteMs = Math.max(Date.now(), this.#lastWriteMs + 1);
    return new Date(this.#lastWriteMs).toISOString();
  }
}
