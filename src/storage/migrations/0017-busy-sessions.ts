import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Busy sessions (extensions §6). A message run accepted while its session is busy waits with
 * `runs.dispatch = 'session'`: it holds no slot and is in no workspace line until the session's run
 * ends, which hands the session to the oldest such run in the same transaction (it then waits for a
 * slot like any run). `runs.session_cut` marks a session run cancelled by a later message's
 * `interrupt` or `rollback`: what its end leaves in the session's history.
 */
export const busySessions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('runs').addColumn('session_cut', 'text').execute();
    await db.schema
      .createIndex('runs_session_held')
      .on('runs')
      .columns(['session_id', 'id'])
      .where(sql.ref('dispatch'), '=', sql.lit('session'))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('runs_session_held').execute();
    await db.schema.alterTable('runs').dropColumn('session_cut').execute();
  },
};
