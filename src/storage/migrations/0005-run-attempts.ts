import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/** The run's attempt number: the fencing token a worker takes when it claims the run and checks on every write. */
export const runAttempts: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('runs')
      .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('runs').dropColumn('attempt').execute();
  },
};
