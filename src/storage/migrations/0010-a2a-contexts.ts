import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * The hosted A2A endpoint's conversations: each (workspace, agent, contextId) is bound to one
 * session. The key is unique, so every replica finds the same session and two concurrent first
 * messages of one context bind one. The session id is reserved here before the session row exists
 * (whoever binds it then creates it), so it carries no foreign key.
 */
export const a2aContexts: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('a2a_contexts')
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
      .addColumn('context_id', 'text', (c) => c.notNull())
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('a2a_contexts_pk', ['workspace_id', 'agent_id', 'context_id'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('a2a_contexts').ifExists().execute();
  },
};
