import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/** The conversation state of a run at its last tool-round boundary, so a restarted worker can resume it. */
export const runCheckpoints: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('run_checkpoints')
      .addColumn('run_id', 'text', (c) => c.primaryKey().references('runs.id').onDelete('cascade'))
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('run_checkpoints').ifExists().execute();
  },
};
