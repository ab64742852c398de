import type { Kysely } from 'kysely';
import type { AdmittedRun, DispatchStore } from '../../engine/ports.ts';
import { isPostgres } from '../dialect.ts';
import { nowIso } from '../json-column.ts';
import { PreparedQuery } from '../prepared-query.ts';
import type { Database } from '../schema.ts';
import { admittedCountOf, lockWorkspace, waitingOf } from './run-admission.ts';
import {
  lockSession,
  promoteHeldRun,
  releaseStaleReservation,
  staleReservationBound,
} from './session-run-line.ts';

/**
 * `runs.dispatch` (migration 0007): waiting for a slot, admitted to a worker, or parked on a client
 * tool. Admissions of one workspace are serialized: SQLite runs one write at a time, and on
 * PostgreSQL they lock the workspace's row first. The statements of every run's path are compiled once.
 */
export class RunDispatchRepository implements DispatchStore {
  readonly #db: Kysely<Database>;
  readonly #postgres: boolean;
  readonly #lockWorkspace: PreparedQuery<'workspaceId', { max_concurrent_runs: number }>;
  readonly #admittedCount: PreparedQuery<'workspaceId', { admitted: number | string }>;
  readonly #admitOldest: PreparedQuery<'workspaceId' | 'free', { id: string; admission: number }>;
  readonly #admitCancelled: PreparedQuery<'runId', { admission: number }>;
  readonly #hasWaiting: PreparedQuery<'workspaceId', { id: string }>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
    this.#postgres = isPostgres(db);
    this.#lockWorkspace = new PreparedQuery((param) =>
      lockWorkspace(db, param<string>('workspaceId'), this.#postgres),
    );
    this.#admittedCount = new PreparedQuery((param) => admittedCountOf(db, param<string>('workspaceId')));
    this.#admitOldest = new PreparedQuery((param) =>
      db
        .updateTable('runs')
        .set((eb) => ({ dispatch: 'admitted', admission: eb('admission', '+', 1) }))
        .where('dispatch', '=', 'waiting')
        .where('id', 'in', () =>
          waitingOf(db, param<string>('workspaceId'))
            .orderBy('waiting.created_at')
            .orderBy('waiting.id')
            .limit(param<number>('free')),
        )
        .returning(['id', 'admission']),
    );
    this.#admitCancelled = new PreparedQuery((param) =>
      db
        .updateTable('runs')
        .set((eb) => ({ dispatch: 'admitted', admission: eb('admission', '+', 1) }))
        .where('id', '=', param<string>('runId'))
        // Waiting for a slot, or for its busy session (migration 0017).
        .where('dispatch', 'in', ['waiting', 'session'])
        .where('cancel_requested_at', 'is not', null)
        .returning('admission'),
    );
    this.#hasWaiting = new PreparedQuery((param) => waitingOf(db, param<string>('workspaceId')).limit(1));
  }

  admit(workspaceId: string): Promise<AdmittedRun[]> {
    return this.#db.transaction().execute(async (trx) => {
      const workspace = await this.#lockWorkspace.first(trx, { workspaceId });
      if (!workspace) return [];
      const { admitted } = (await this.#admittedCount.first(trx, { workspaceId })) ?? { admitted: 0 };
      const free = Number(workspace.max_concurrent_runs) - Number(admitted);
      if (free <= 0) return [];
      const { rows } = await this.#admitOldest.execute(trx, { workspaceId, free });
      return rows
        .map((row) => ({ runId: row.id, admission: Number(row.admission) }))
        .sort((a, b) => a.runId.localeCompare(b.runId));
    });
  }

  async admitCancelled(runId: string): Promise<AdmittedRun | undefined> {
    const row = await this.#admitCancelled.first(this.#db, { runId });
    return row && { runId, admission: Number(row.admission) };
  }

  async hasWaiting(workspaceId: string): Promise<boolean> {
    return (await this.#hasWaiting.first(this.#db, { workspaceId })) !== undefined;
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

  async dueParked(dueBy: string, limit: number): Promise<Array<{ runId: string; wakeAt: string }>> {
    const rows = await this.#db
      .selectFrom('runs')
      .select(['id', 'wake_at'])
      .where('dispatch', '=', 'parked')
      .where('wake_at', '<=', dueBy)
      .orderBy('wake_at')
      .limit(limit)
      .execute();
    return rows.flatMap((row) => (row.wake_at === null ? [] : [{ runId: row.id, wakeAt: row.wake_at }]));
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

  async releaseStrandedSessionRuns(limit: number): Promise<number> {
    const ended = await this.#db
      .updateTable('runs')
      .set((eb) => ({
        dispatch: 'waiting',
        cancel_requested_at: eb.fn.coalesce('cancel_requested_at', eb.val(nowIso())),
      }))
      .where('dispatch', '=', 'session')
      .where('session_id', 'in', (eb) =>
        eb.selectFrom('sessions').select('sessions.id').where('sessions.status', '=', 'ended'),
      )
      .executeTakeFirst();
    const free = await this.#db
      .selectFrom('runs')
      .innerJoin('sessions', 'sessions.id', 'runs.session_id')
      .select('sessions.id')
      .distinct()
      .where('runs.dispatch', '=', 'session')
      .where('runs.cancel_requested_at', 'is', null)
      .where('sessions.status', '=', 'active')
      .where((eb) =>
        eb.or([
          eb('sessions.active_run_id', 'is', null),
          eb('sessions.active_run_id', '<', staleReservationBound()),
        ]),
      )
      .limit(limit)
      .execute();
    let promoted = 0;
    for (const { id } of free) {
      const runId = await this.#db.transaction().execute(async (trx) => {
        const session = await lockSession(trx, id);
        if (!session) return undefined;
        // A reservation whose run was never created (see SessionRepository.claimForRun) frees the line.
        if (
          session.active_run_id !== null &&
          !(await releaseStaleReservation(trx, id, session.active_run_id))
        )
          return undefined;
        return promoteHeldRun(trx, id);
      });
      if (runId !== undefined) promoted++;
    }
    return Number(ended.numUpdatedRows) + promoted;
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
