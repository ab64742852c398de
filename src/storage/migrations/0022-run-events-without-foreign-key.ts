import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { isPostgres } from '../dialect.ts';

/** The name PostgreSQL gave the inline `references runs.id` of `run_events.run_id` (migration 0001). */
const RUN_EVENTS_RUN_FK = 'run_events_run_id_fkey';

/**
 * PostgreSQL: `run_events.run_id` loses its foreign key. It cost one trigger statement per event row
 * (`select 1 from runs where id = $1 for key share`, 52 per run in the scale-out bench), inside the
 * event writer's transaction whose fence already selects every run of the batch `for update` and
 * drops the events of a run it does not find (attempt-fence.ts). Its `on delete cascade` is done by
 * hand where runs are deleted: with their workspace (workspace-repository.ts).
 *
 * SQLite keeps it: there the check is a lookup in the process (about 0.3 µs per row, 16 µs per
 * 52-event run against 7.6–8.9 ms of CPU per run, measured on 2026-11-29), while dropping it
 * rebuilds the table, a long locked migration on a large log. The explicit delete runs there too.
 */
export const runEventsWithoutForeignKey: Migration = {
  async up(db: Kysely<unknown>) {
    if (!isPostgres(db)) return;
    await db.schema.alterTable('run_events').dropConstraint(RUN_EVENTS_RUN_FK).execute();
  },
  async down(db: Kysely<unknown>) {
    if (!isPostgres(db)) return;
    await db.schema
      .alterTable('run_events')
      .addForeignKeyConstraint(RUN_EVENTS_RUN_FK, ['run_id'], 'runs', ['id'], (constraint) =>
        constraint.onDelete('cascade'),
      )
      .execute();
  },
};
