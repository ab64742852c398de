import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * The console's OAuth sign-in hands the access token to the browser tab through a single-use handoff:
 * the callback stores the token sealed under the handoff id (which only the tab holds, so the row alone
 * does not reveal it) with the hash of the browser's binding cookie; the tab redeems it within 60 s by
 * deleting the row. Any API replica serves either step.
 */
export const consoleHandoffs: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('console_handoffs')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('browser_binding_hash', 'text', (c) => c.notNull())
      .addColumn('sealed_token', 'text', (c) => c.notNull())
      .addColumn('token_expires_at', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('console_handoffs_expiry')
      .on('console_handoffs')
      .column('expires_at')
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('console_handoffs').ifExists().execute();
  },
};
