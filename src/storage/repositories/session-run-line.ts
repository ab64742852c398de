import type { Kysely } from 'kysely';
import { idBoundAt } from '../../domain/ids.ts';
import type { AssistantMessageData } from '../../domain/run-events.ts';
import type { SessionCut } from '../../domain/session.ts';
import type { SessionItem } from '../../domain/session-history.ts';
import type { SessionRunEnd } from '../../engine/ports.ts';
import { isPostgres } from '../dialect.ts';
import { fromJson } from '../json-column.ts';
import type { Database } from '../schema.ts';

/**
 * A session's line of message runs (extensions §6): runs accepted while the session was busy wait
 * with `dispatch = 'session'`, oldest id first, and the session is handed to the next one in the
 * transaction that ends the run holding it. Every function here runs inside a transaction that
 * first locked the session's row (`lockSession`), so a hand-over, a preempting message and a run's
 * end on different replicas are serialized.
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

/** Frees the session of `runId`'s reservation if it is stale and its run was never created. */
export async function releaseStaleReservation(
  trx: Kysely<Database>,
  sessionId: string,
  runId: string,
): Promise<boolean> {
  if (runId >= staleReservationBound()) return false;
  const run = await trx.selectFrom('runs').select('id').where('id', '=', runId).executeTakeFirst();
  if (run) return false;
  await trx
    .updateTable('sessions')
    .set({ active_run_id: null })
    .where('id', '=', sessionId)
    .where('active_run_id', '=', runId)
    .execute();
  return true;
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
