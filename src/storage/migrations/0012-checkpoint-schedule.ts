import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { isPostgres } from '../dialect.ts';

/**
 * A run checkpoint's pending round stores the round's schedule as `schedule` (it was `plan`, the
 * name of a run control). Checkpoints of runs in flight are rewritten rather than read under both
 * names: a resumed round that lost its schedule would be scheduled again, and the controls would
 * count its calls twice. A checkpoint without the field is left as it is.
 */
export const checkpointSchedule: Migration = {
  up: (db: Kysely<unknown>) => renamePendingRoundField(db, 'plan', 'schedule'),
  down: (db: Kysely<unknown>) => renamePendingRoundField(db, 'schedule', 'plan'),
};

/** Rows read, and rewritten in one statement, at a time on PostgreSQL. */
const BATCH_SIZE = 200;

function renamePendingRoundField(db: Kysely<unknown>, from: string, to: string): Promise<void> {
  return isPostgres(db) ? rewriteInBatches(db, from, to) : renameInSqlite(db, from, to);
}

/** SQLite's JSON functions keep the rest of the stored text as it was. */
async function renameInSqlite(db: Kysely<unknown>, from: string, to: string): Promise<void> {
  const fromPath = `$.pendingRound.${from}`;
  const toPath = `$.pendingRound.${to}`;
  await sql`update run_checkpoints
    set state = json_set(json_remove(state, ${fromPath}), ${toPath}, state -> ${fromPath})
    where json_type(state, ${fromPath}) is not null`.execute(db);
}

/**
 * The state is JSON text, and PostgreSQL's JSON functions reject the `\u0000` that JSON.stringify
 * writes for a NUL in any tool output (even on the `json` type), so the rows are rewritten here.
 */
async function rewriteInBatches(db: Kysely<unknown>, from: string, to: string): Promise<void> {
  const checkpoints = db.withTables<{ run_checkpoints: { run_id: string; state: string } }>();
  let after = '';
  for (;;) {
    const rows = await checkpoints
      .selectFrom('run_checkpoints')
      .select(['run_id', 'state'])
      .where('run_id', '>', after)
      .where('state', 'like', `%"${from}":%`)
      .orderBy('run_id')
      .limit(BATCH_SIZE)
      .execute();
    const rewritten = rows.flatMap((row) => {
      const state = renamedField(row.state, from, to);
      return state === undefined ? [] : [sql`(${row.run_id}, ${state})`];
    });
    if (rewritten.length > 0) {
      await sql`update run_checkpoints as stored set state = renamed.state
        from (values ${sql.join(rewritten)}) as renamed (run_id, state)
        where stored.run_id = renamed.run_id`.execute(db);
    }
    const last = rows.at(-1);
    if (!last || rows.length < BATCH_SIZE) return;
    after = last.run_id;
  }
}

/** The state with `pendingRound[from]` renamed in place; undefined when it has no such field. */
function renamedField(text: string, from: string, to: string): string | undefined {
  const state: unknown = JSON.parse(text);
  if (!isRecord(state) || !isRecord(state.pendingRound) || !(from in state.pendingRound)) return undefined;
  const pendingRound = Object.fromEntries(
    Object.entries(state.pendingRound).map(([key, value]) => [key === from ? to : key, value]),
  );
  return JSON.stringify({ ...state, pendingRound });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
