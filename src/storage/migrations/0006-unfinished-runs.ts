import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Unfinished runs, oldest first: what a restarted embedded service takes up again and what scale-out
 * workers sweep for lost jobs every two lease periods. A partial index keeps that read proportional
 * to the runs in flight, not to every run ever made.
 */
export const unfinishedRuns: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('runs_unfinished_created')
      .on('runs')
      .column('created_at')
      .where(sql.ref('ended_at'), 'is', null)
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('runs_unfinished_created').execute();
  },
};
