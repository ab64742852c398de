import type { Kysely } from 'kysely';
import type { SessionItem } from '../../domain/session-history.ts';
import { extendSessionSummary } from '../../domain/session-summary.ts';
import type { SessionRunEnd } from '../../engine/ports.ts';
import { nowIso, toJson } from '../json-column.ts';
import type { Database } from '../schema.ts';
import {
  itemsLeftBy,
  lockSession,
  promoteHeldRun,
  releaseSessionRun,
  sessionCutOf,
  type LockedSession,
} from './session-run-line.ts';

/**
 * A session run's end, in the transaction that writes its terminal event (so history and outcome
 * never disagree): appends what the run leaves in the history (see `itemsLeftBy`), frees the session
 * if the run held it, and hands it to the next held run, if any.
 */
export async function endSessionRun(trx: Kysely<Database>, end: SessionRunEnd): Promise<void> {
  // Locked first: a preempting message either marked this run before, or finds the session moved on.
  const session = await lockSession(trx, end.sessionId);
  if (!session) return;
  const items = await itemsLeftBy(trx, end, await sessionCutOf(trx, end.runId));
  if (items.length > 0) await appendSessionTurn(trx, end.sessionId, end.runId, items, session);
  else await releaseSessionRun(trx, end.sessionId, end.runId);
  if (session.active_run_id === end.runId) await promoteHeldRun(trx, end.sessionId);
}

/** Appends a run's turns to its session and frees the session for the next run. */
async function appendSessionTurn(
  db: Kysely<Database>,
  sessionId: string,
  runId: string,
  items: readonly SessionItem[],
  session: Pick<LockedSession, 'message_count' | 'summary'>,
): Promise<void> {
  const last = await db
    .selectFrom('session_messages')
    .select((eb) => eb.fn.max('position').as('position'))
    .where('session_id', '=', sessionId)
    .executeTakeFirst();
  let position = Number(last?.position ?? -1) + 1;
  let seq = session.message_count;
  const createdAt = nowIso();
  const rows = items.map((item) => {
    const isPair = item.role === 'tool_pair';
    return {
      session_id: sessionId,
      position: position++,
      seq: isPair ? null : seq++,
      role: item.role,
      content: isPair ? '' : item.content,
      attachments: !isPair && item.attachments ? toJson(item.attachments) : null,
      tool: isPair ? toJson(item.tool) : null,
      run_id: runId,
      created_at: createdAt,
    };
  });
  if (rows.length > 0) await db.insertInto('session_messages').values(rows).execute();
  const summary = extendSessionSummary(
    session.summary,
    items.filter((item) => item.role !== 'tool_pair'),
  );
  await db
    .updateTable('sessions')
    .set({ message_count: seq, summary, last_interaction_at: createdAt, active_run_id: null })
    .where('id', '=', sessionId)
    .where('active_run_id', '=', runId)
    .execute();
}
