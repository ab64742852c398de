import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Fair dispatch. `runs.dispatch` is where an unfinished run stands: `waiting` for a slot of its
 * workspace, `admitted` (holding a slot: queued for or executing on a worker), or `parked` (waiting
 * for a client tool result until `wake_at`, holding no slot); null once it has ended. `admission`
 * counts the run's admissions: each is one job. A workspace has `max_concurrent_runs` slots across
 * all workers. Runs in flight when this migration runs keep the job they had: admitted, admission 0.
 */
export const runDispatch: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('workspaces')
      .addColumn('max_concurrent_runs', 'integer', (c) => c.notNull().defaultTo(100))
      .execute();
    await db.schema.alterTable('runs').addColumn('dispatch', 'text').execute();
    await db.schema.alterTable('runs').addColumn('wake_at', 'text').execute();
    await db.schema
      .alterTable('runs')
      .addColumn('admission', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`update runs set dispatch = 'admitted' where ended_at is null`.execute(db);
    // Admission counts a workspace's admitted runs and takes its oldest waiting ones.
    await db.schema
      .createIndex('runs_dispatch_workspace')
      .on('runs')
      .columns(['workspace_id', 'dispatch', 'created_at'])
      .where(sql.ref('dispatch'), 'is not', null)
      .execute();
    // Unfinished runs are now found by their dispatch state (0006's index served the old sweep).
    await db.schema.dropIndex('runs_unfinished_created').execute();
    // Parked runs due to wake (their client tool wait ran out).
    await db.schema
      .createIndex('runs_parked_wake')
      .on('runs')
      .column('wake_at')
      .where(sql.ref('dispatch'), '=', sql.lit('parked'))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('runs_parked_wake').execute();
    await db.schema.dropIndex('runs_dispatch_workspace').execute();
    await db.schema
      .createIndex('runs_unfinished_created')
      .on('runs')
      .column('created_at')
      .where(sql.ref('ended_at'), 'is', null)
      .execute();
    await db.schema.alterTable('runs').dropColumn('admission').execute();
    await db.schema.alterTable('runs').dropColumn('wake_at').execute();
    await db.schema.alterTable('runs').dropColumn('dispatch').execute();
    await db.schema.alterTable('workspaces').dropColumn('max_concurrent_runs').execute();
  },
};
