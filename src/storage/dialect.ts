import { PostgresAdapter, type Kysely } from 'kysely';

/** For the rare query that differs by engine (row locks); everything else is one codebase. */
export function isPostgres<DB>(db: Kysely<DB>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
