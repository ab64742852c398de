import type { Kysely } from 'kysely';
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
