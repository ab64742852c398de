import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Tasks of streamed messages to hosted agents, so `GetTask`, `CancelTask` and `SubscribeToTask`
 * (`tasks/get`, `tasks/cancel`, `tasks/resubscribe` in v0.3) answer on every API replica, not only
 * on the one that serves the stream. One row per (workspace, agent, task id): the task as A2A 1.0
 * JSON, and the run that answers it. Rows are forgotten a while after their last change.
 */
export const a2aTasks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('a2a_tasks')
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
      .addColumn('task_id', 'text', (c) => c.notNull())
      .addColumn('context_id', 'text', (c) => c.notNull())
      .addColumn('run_id', 'text')
      .addColumn('task', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('a2a_tasks_pk', ['workspace_id', 'agent_id', 'task_id'])
      .execute();
    await db.schema.createIndex('a2a_tasks_updated_at').on('a2a_tasks').column('updated_at').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('a2a_tasks').ifExists().execute();
  },
};
