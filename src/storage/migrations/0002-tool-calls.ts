import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/** Client-resolved tool calls waiting for (or holding) the client's result: waiting is state, not memory. */
export const toolCalls: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('tool_calls')
      .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
      .addColumn('tool_use_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('result', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('answered_at', 'text')
      .addPrimaryKeyConstraint('tool_calls_pk', ['run_id', 'tool_use_id'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('tool_calls').ifExists().execute();
  },
};
