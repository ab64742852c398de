import type { Kysely } from 'kysely';
import type { AdmittedRun, DispatchStore } from '../../engine/ports.ts';
import { isPostgres } from '../dialect.ts';
import { nowIso } from '../json-column.ts';
import type { Database } from '../schema.ts';

/** `runs.dispatch` (migration 0007): waiting for a slot, admitted to a worker, or parked on a client tool. */
export class RunDispatchRepository implements DispatchStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  admit(workspaceId: string): Promise<AdmittedRun[]> {
    const lockRows = isPostgres(this.#db);
    return this.#db.transaction().execute(async (trx) => {
      // The workspace row is the lock that serializes admissions of one workspace across replicas
      // (SQLite runs one write transaction at a time anyway).
      let limit = trx.selectFrom('workspaces').select('max_concurrent_runs').where('id', '=', workspaceId);
      if (lockRows) limit = limit.forUpdate();
      const workspace = await limit.executeTakeFirst();
      if (!workspace) return [];
      const { admitted } = await trx
        .selectFrom('runs')
        .select((eb) => eb.fn.countAll<number | string>().as('admitted'))
        .where('workspace_id', '=', workspaceId)
        .where('dispatch', '=', 'admitted')
        .executeTakeFirstOrThrow();
      const free = Number(workspace.max_concurrent_runs) - Number(admitted);
      const waiting = trx
        .selectFrom('runs')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('dispatch', '=', 'waiting');
      const oldest = free > 0 ? await waiting.orderBy('created_at').orderBy('id').limit(free).execute() : [];
      // A cancelled run only ends (no model call): it never waits for a slot.
      const cancelled = await waiting.where('cancel_requested_at', 'is not', null).execute();
      const ids = [...new Set([...oldest, ...cancelled].map((row) => row.id))];
      if (ids.length === 0) return [];
      const rows = await trx
        .updateTable('runs')
        .set((eb) => ({ dispatch: 'admitted', admission: eb('admission', '+', 1) }))
        .where('id', 'in', ids)
        .where('dispatch', '=', 'waiting')
        .returning(['id', 'admission', 'created_at'])
        .execute();
      return rows
        .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
        .map((row) => ({ runId: row.id, admission: Number(row.admission) }));
    });
  }

  async hasWaiting(workspaceId: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom('runs')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('dispatch', '=', 'waiting')
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async park(runId: string, attempt: number, wakeAt: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('runs')
      .set({ dispatch: 'parked', wake_at: wakeAt, updated_at: nowIso() })
      .where('id', '=', runId)
      .where('attempt', '=', attempt)
      .where('dispatch', '=', 'admitted')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async wake(runId: string, dueBy?: string): Promise<string | undefined> {
    let query = this.#db
      .updateTable('runs')
      .set({ dispatch: 'waiting', wake_at: null })
      .where('id', '=', runId)
      .where('dispatch', '=', 'parked');
    if (dueBy !== undefined) query = query.where('wake_at', '<=', dueBy);
    const row = await query.returning('workspace_id').executeTakeFirst();
    return row?.workspace_id;
  }

  async dueParked(now: string, limit: number): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('runs')
      .select('id')
      .where('dispatch', '=', 'parked')
      .where('wake_at', '<=', now)
      .orderBy('wake_at')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  async answeredParked(limit: number): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('runs')
      .select('id')
      .where('dispatch', '=', 'parked')
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('tool_calls')
            .select('tool_calls.run_id')
            .whereRef('tool_calls.run_id', '=', 'runs.id')
            .where('tool_calls.status', '=', 'answered')
            .whereRef('tool_calls.answered_at', '>=', 'runs.updated_at'),
        ),
      )
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  async workspacesWithWaiting(limit: number): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('runs')
      .select('workspace_id')
      .distinct()
      .where('dispatch', '=', 'waiting')
      .limit(limit)
      .execute();
    return rows.map((row) => row.workspace_id);
  }

  async admitted(limit: number): Promise<AdmittedRun[]> {
    const rows = await this.#db
      .selectFrom('runs')
      .select(['id', 'admission'])
      .where('dispatch', '=', 'admitted')
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ runId: row.id, admission: Number(row.admission) }));
  }
}
