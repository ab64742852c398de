import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Sessions, their conversation, and their metadata as rows (not JSON) so the
 * list's `metadata=key:value` filters and its ordering run on indexes.
 */
export const sessions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('api_key_id', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('spec', 'text', (c) => c.notNull())
      .addColumn('metadata', 'text', (c) => c.notNull())
      .addColumn('summary', 'text', (c) => c.notNull())
      .addColumn('message_count', 'integer', (c) => c.notNull())
      .addColumn('active_run_id', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_interaction_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('sessions_workspace_recent')
      .on('sessions')
      .columns(['workspace_id', 'last_interaction_at', 'id'])
      .execute();
    await db.schema
      .createIndex('sessions_workspace_status_recent')
      .on('sessions')
      .columns(['workspace_id', 'status', 'last_interaction_at'])
      .execute();

    await db.schema
      .createTable('session_metadata')
      .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('session_metadata_pk', ['session_id', 'key'])
      .execute();
    await db.schema
      .createIndex('session_metadata_lookup')
      .on('session_metadata')
      .columns(['workspace_id', 'key', 'value', 'session_id'])
      .execute();

    await db.schema
      .createTable('session_messages')
      .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
      .addColumn('position', 'integer', (c) => c.notNull())
      // The replay seq of user/assistant/system messages; null for retained tool pairs (never replayed).
      .addColumn('seq', 'integer')
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('attachments', 'text')
      .addColumn('tool', 'text')
      .addColumn('run_id', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('session_messages_pk', ['session_id', 'position'])
      .execute();
    await db.schema
      .createIndex('session_messages_seq')
      .on('session_messages')
      .columns(['session_id', 'seq'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    for (const table of ['session_messages', 'session_metadata', 'sessions']) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  },
};
