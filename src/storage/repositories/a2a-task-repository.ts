import type { Kysely } from 'kysely';
import type { A2aTaskStore, StoredA2aTask } from '../../engine/ports.ts';
import { fromJson, toJson } from '../json-column.ts';
import type { Database } from '../schema.ts';

/** Tasks of hosted agents' streamed messages (A2A), shared by every replica. */
export class A2aTaskRepository implements A2aTaskStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Inserts or replaces the task (`ON CONFLICT DO UPDATE` on both engines). */
  async save(task: StoredA2aTask): Promise<void> {
    const row = {
      workspace_id: task.workspaceId,
      agent_id: task.agentId,
      task_id: task.taskId,
      context_id: task.contextId,
      run_id: task.runId ?? null,
      task: toJson(task.task),
      updated_at: task.updatedAt,
    };
    await this.#db
      .insertInto('a2a_tasks')
      .values(row)
      .onConflict((conflict) =>
        conflict.columns(['workspace_id', 'agent_id', 'task_id']).doUpdateSet({
          context_id: row.context_id,
          // A save that does not know the run (the SDK's own updates) keeps the one stored.
          run_id: (eb) => eb.fn.coalesce(eb.val(row.run_id), eb.ref('a2a_tasks.run_id')),
          task: row.task,
          updated_at: row.updated_at,
        }),
      )
      .execute();
  }

  async find(
    workspaceId: string,
    agentId: string,
    taskId: string,
    updatedSince: string,
  ): Promise<StoredA2aTask | undefined> {
    const row = await this.#db
      .selectFrom('a2a_tasks')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('agent_id', '=', agentId)
      .where('task_id', '=', taskId)
      .where('updated_at', '>=', updatedSince)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      workspaceId: row.workspace_id,
      agentId: row.agent_id,
      taskId: row.task_id,
      contextId: row.context_id,
      runId: row.run_id ?? undefined,
      task: fromJson<Record<string, unknown>>(row.task),
      updatedAt: row.updated_at,
    };
  }

  async deleteUpdatedBefore(cutoff: string): Promise<number> {
    const result = await this.#db.deleteFrom('a2a_tasks').where('updated_at', '<', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
