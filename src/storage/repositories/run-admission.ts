import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from '../schema.ts';

/**
 * The statements that decide a workspace's admissions (`runs.dispatch`, migration 0007), shared by
 * the dispatch repository and the run insert that admits a new run at once. A workspace has
 * `max_concurrent_runs` slots; waiting runs take them oldest first.
 */

/** How many of the workspace's runs hold a slot. */
export function admittedCountOf(db: Kysely<Database>, workspaceId: string) {
  return db
    .selectFrom('runs as admitted')
    .select((eb) => eb.fn.countAll<number | string>().as('admitted'))
    .where('admitted.workspace_id', '=', workspaceId)
    .where('admitted.dispatch', '=', 'admitted');
}

/** The workspace's runs waiting for a slot. */
export function waitingOf(db: Kysely<Database>, workspaceId: string) {
  return db
    .selectFrom('runs as waiting')
    .select('waiting.id')
    .where('waiting.workspace_id', '=', workspaceId)
    .where('waiting.dispatch', '=', 'waiting');
}

/** The workspace's row, locked on PostgreSQL: its admissions are serialized (SQLite has one writer). */
export function lockWorkspace(db: Kysely<Database>, workspaceId: string, postgres: boolean) {
  const query = db.selectFrom('workspaces').select('max_concurrent_runs').where('id', '=', workspaceId);
  return postgres ? query.forUpdate() : query;
}

/**
 * Whether a run arriving now is admitted at once: its workspace has a free slot and no run waits for
 * one (a waiting run came first). On PostgreSQL only after `lockWorkspace` in the same transaction.
 */
export function admitsNewRun<TB extends keyof Database>(
  db: Kysely<Database>,
  eb: ExpressionBuilder<Database, TB>,
  workspaceId: string,
) {
  return eb.and([
    eb(
      admittedCountOf(db, workspaceId),
      '<',
      db.selectFrom('workspaces').select('max_concurrent_runs').where('workspaces.id', '=', workspaceId),
    ),
    eb.not(eb.exists(waitingOf(db, workspaceId))),
  ]);
}
