import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Server-resolved tools: each call's row is written before it executes and its outcome after (a
 * call with a row and no outcome is never executed again); files the tools returned, by storage
 * key; and plugin records (the memory plugin), scoped to a workspace, an agent and a namespace.
 */
export const serverTools: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('server_tool_calls')
      .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
      .addColumn('tool_use_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('outcome', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('finished_at', 'text')
      .addPrimaryKeyConstraint('server_tool_calls_pk', ['run_id', 'tool_use_id'])
      .execute();
    await db.schema
      .createTable('stored_files')
      .addColumn('storage_key', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
      .addColumn('filename', 'text', (c) => c.notNull())
      .addColumn('mime_type', 'text', (c) => c.notNull())
      .addColumn('size_bytes', 'integer', (c) => c.notNull())
      // Base64: one column type for both engines.
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('plugin_records')
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('namespace', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('plugin_records_pk', ['workspace_id', 'agent_id', 'namespace', 'key'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('plugin_records').ifExists().execute();
    await db.schema.dropTable('stored_files').ifExists().execute();
    await db.schema.dropTable('server_tool_calls').ifExists().execute();
  },
};
