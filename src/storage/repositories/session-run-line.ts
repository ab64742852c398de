import type { Kysely } from 'kysely';
import { idBoundAt } from '../../domain/ids.ts';
import type { AssistantMessageData } from '../../domain/run-events.ts';
import type { SessionCut } from '../../domain/session.ts';
import type { SessionItem } from '../../domain/session-history.ts';
import type { SessionRunEnd } from '../../engine/ports.ts';
import { isPostgres } from '../dialect.ts';
import { fromJson, nowIso } from '../json-column.ts';
import type { Database } from '../schema.ts';

/**
 * A session's line of message runs (extensions §6): runs accepted while the session was busy wait
 * with `dispatch = 'session'`, oldest id first, and the session is handed to the next one in the
 * transaction that ends the run holding it. Every function here but the claim (one conditional
 * update) runs inside a transaction that first locked the session's row (`lockSession`), so a
 * hand-over, a preempting message and a run's end on different replicas are serialized.
 */

export interface LockedSession {
  status: string;
  active_run_id: string | null;
  message_count: number;
  summary: string;
}

/** Reads the session's row, locking it until the transaction ends (SQLite serializes its writers). */
export async function lockSession(
  trx: Kysely<Database>,
  sessionId: string,
): Promise<LockedSession | undefined> {
  const query = trx
    .selectFrom('sessions')
    .select(['status', 'active_run_id', 'message_count', 'summary'])
    .where('id', '=', sessionId);
  return (isPostgres(trx) ? query.forUpdate() : query).executeTakeFirst();
}

/**
 * Hands a free, active session to its oldest held run that nobody cancelled, which then waits for
 * a slot of its workspace; returns that run's id.
 */
export async function promoteHeldRun(trx: Kysely<Database>, sessionId: string): Promise<string | undefined> {
  const next = await trx
    .selectFrom('runs')
    .select('id')
    .where('session_id', '=', sessionId)
    .where('dispatch', '=', 'session')
    .where('cancel_requested_at', 'is', null)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!next) return undefined;
  const taken = await trx
    .updateTable('sessions')
    .set({ active_run_id: next.id })
    .where('id', '=', sessionId)
    .where('status', '=', 'active')
    .where('active_run_id', 'is', null)
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) === 0) return undefined;
  await trx
    .updateTable('runs')
    .set({ dispatch: 'waiting' })
    .where('id', '=', next.id)
    .where('dispatch', '=', 'session')
    .execute();
  return next.id;
}

/** A reservation this old whose run does not exist was left by a failed creation. */
export const STALE_RESERVATION_MS = 60_000;

/** Every run id reserved before this is old enough for its reservation to be stale. */
export function staleReservationBound(): string {
  return idBoundAt('run', Date.now() - STALE_RESERVATION_MS);
}

/**
 * Reserves the session for `runId`, if no run holds it and none waits in its line. A reservation
 * whose run was never created (the database went away between the two writes, and could not be
 * told to release it) is taken over once it is a minute old: a run is created within milliseconds
 * of its reservation.
 */
export async function claimSession(db: Kysely<Database>, sessionId: string, runId: string): Promise<boolean> {
  const staleBelow = staleReservationBound();
  const result = await db
    .updateTable('sessions')
    .set({ active_run_id: runId })
    .where('id', '=', sessionId)
    .where('status', '=', 'active')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('runs as held')
            .select('held.id')
            .whereRef('held.session_id', '=', 'sessions.id')
            .where('held.dispatch', '=', 'session')
            .where('held.cancel_requested_at', 'is', null),
        ),
      ),
    )
    .where((eb) =>
      eb.or([
        eb('active_run_id', 'is', null),
        eb.and([
          eb('active_run_id', '<', staleBelow),
          eb.not(
            eb.exists(
              eb.selectFrom('runs').select('runs.id').whereRef('runs.id', '=', 'sessions.active_run_id'),
            ),
          ),
        ]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Frees the session of `runId`'s reservation if it is stale and its run was never created. */
export async function releaseStaleReservation(
  trx: Kysely<Database>,
  sessionId: string,
  runId: string,
): Promise<boolean> {
  if (runId >= staleReservationBound()) return false;
  const run = await trx.selectFrom('runs').select('id').where('id', '=', runId).executeTakeFirst();
  if (run) return false;
  await releaseSessionRun(trx, sessionId, runId);
  return true;
}

/** Frees the session if `runId` holds it. */
export async function releaseSessionRun(
  db: Kysely<Database>,
  sessionId: string,
  runId: string,
): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ active_run_id: null })
    .where('id', '=', sessionId)
    .where('active_run_id', '=', runId)
    .execute();
}

/** Held runs of the session accepted before `beforeRunId` (all when omitted) that nobody cancelled. */
export async function heldRunIds(
  db: Kysely<Database>,
  sessionId: string,
  beforeRunId?: string,
): Promise<string[]> {
  let query = db
    .selectFrom('runs')
    .select('id')
    .where('session_id', '=', sessionId)
    .where('dispatch', '=', 'session')
    .where('cancel_requested_at', 'is', null);
  if (beforeRunId !== undefined) query = query.where('id', '<', beforeRunId);
  const rows = await query.orderBy('id').execute();
  return rows.map((row) => row.id);
}

/**
 * A message with `ifBusy` `interrupt` or `rollback` (held as `runId`), in the transaction that locked
 * the session: marks `holder`, the run holding the session, with `cut` (what its end leaves in the
 * history) and requests the cancel of the runs held before `runId`. Returns the runs to cancel, the
 * holder first.
 */
export async function preemptLine(
  trx: Kysely<Database>,
  sessionId: string,
  holder: string | null,
  runId: string,
  cut: SessionCut,
): Promise<string[]> {
  const preempted = holder !== null && holder !== runId ? holder : undefined;
  if (preempted !== undefined) {
    await trx
      .updateTable('runs')
      .set({ session_cut: cut })
      .where('id', '=', preempted)
      .where('ended_at', 'is', null)
      .execute();
  }
  const held = await heldRunIds(trx, sessionId, runId);
  if (held.length > 0) {
    // Requested here so that no hand-over picks them before their cancel is signalled.
    await trx
      .updateTable('runs')
      .set({ cancel_requested_at: nowIso() })
      .where('id', 'in', held)
      .where('cancel_requested_at', 'is', null)
      .execute();
  }
  return [...(preempted !== undefined ? [preempted] : []), ...held];
}

/**
 * What a session run's end leaves in the history: nothing after a `rollback`; its turns on success;
 * after an `interrupt`, its user turns, retained tool results and the text of every turn it
 * completed (a turn cut short has no finish reason: it is dropped); otherwise nothing.
 */
export async function itemsLeftBy(
  trx: Kysely<Database>,
  end: SessionRunEnd,
  cut: SessionCut | null,
): Promise<readonly SessionItem[]> {
  if (cut === 'rollback') return [];
  if (end.append !== null) return end.append;
  if (cut !== 'interrupt') return [];
  const rows = await trx
    .selectFrom('run_events')
    .select('data')
    .where('run_id', '=', end.runId)
    .where('type', '=', 'assistant_message')
    .orderBy('seq')
    .execute();
  const completed = rows
    .map((row) => fromJson<AssistantMessageData>(row.data))
    .filter((turn) => turn.finishReason !== null && turn.text !== '')
    .map((turn): SessionItem => ({ role: 'assistant', content: turn.text }));
  return [...end.kept, ...completed];
}

/** How a later message cut the run short, if one did. */
export async function sessionCutOf(trx: Kysely<Database>, runId: string): Promise<SessionCut | null> {
  const row = await trx.selectFrom('runs').select('session_cut').where('id', '=', runId).executeTakeFirst();
  return (row?.session_cut as SessionCut | null | undefined) ?? null;
}
