import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import { idBoundAt, newId } from '../../domain/ids.ts';
import type { AttachmentMetadata, RetainedToolPair, SessionItem } from '../../domain/session-history.ts';
import type {
  Session,
  SessionCut,
  SessionMessage,
  SessionSpec,
  SessionStatus,
} from '../../domain/session.ts';
import type { NewSession, SessionListQuery, SessionRunEnd, SessionStore } from '../../engine/ports.ts';
import { extendSessionSummary } from '../../domain/session-summary.ts';
import { fromJson, nowIso, toJson } from '../json-column.ts';
import type { Database, SessionsTable } from '../schema.ts';
import {
  heldRunIds,
  itemsLeftBy,
  lockSession,
  promoteHeldRun,
  sessionCutOf,
  type LockedSession,
} from './session-run-line.ts';

/** A reservation this old whose run does not exist was left by a failed creation. */
const STALE_RESERVATION_MS = 60_000;

export class SessionRepository implements SessionStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(input: NewSession): Promise<Session> {
    const now = nowIso();
    const row: SessionsTable = {
      id: input.id ?? newId('session'),
      workspace_id: input.workspaceId,
      api_key_id: input.apiKeyId,
      status: 'active',
      spec: toJson(input.spec),
      metadata: toJson(input.metadata),
      summary: '',
      message_count: 0,
      active_run_id: null,
      created_at: now,
      last_interaction_at: now,
    };
    await this.#db.transaction().execute(async (trx) => {
      await trx.insertInto('sessions').values(row).execute();
      const entries = Object.entries(input.metadata);
      if (entries.length > 0) {
        await trx
          .insertInto('session_metadata')
          .values(
            entries.map(([key, value]) => ({
              session_id: row.id,
              workspace_id: input.workspaceId,
              key,
              value,
            })),
          )
          .execute();
      }
    });
    return toSession(row);
  }

  async findById(workspaceId: string, id: string): Promise<Session | undefined> {
    const row = await this.#db
      .selectFrom('sessions')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toSession(row);
  }

  /** Most recently used first; metadata filters AND-combined, each an indexed lookup. */
  async list(workspaceId: string, query: SessionListQuery): Promise<{ total: number; sessions: Session[] }> {
    const [first, ...rest] = query.metadata;
    // With a metadata filter, the scan starts from its index entries (CROSS JOIN keeps that order on
    // SQLite whatever its statistics say); each further filter is one primary-key probe per candidate.
    // Both shapes are then refined on `sessions` columns only, so they share one builder type.
    let filtered: SelectQueryBuilder<Database, 'sessions', object> = first
      ? this.#db
          .selectFrom('session_metadata as first_filter')
          .crossJoin('sessions')
          .where('first_filter.workspace_id', '=', workspaceId)
          .where('first_filter.key', '=', first.key)
          .where('first_filter.value', '=', first.value)
          .whereRef('sessions.id', '=', 'first_filter.session_id')
      : this.#db.selectFrom('sessions');
    filtered = filtered.where('sessions.workspace_id', '=', workspaceId);
    if (query.status) filtered = filtered.where('sessions.status', '=', query.status);
    for (const { key, value } of rest) {
      filtered = filtered.where(({ exists, selectFrom }) =>
        exists(
          selectFrom('session_metadata')
            .select(sql.lit(1).as('one'))
            .whereRef('session_metadata.session_id', '=', 'sessions.id')
            .where('session_metadata.key', '=', key)
            .where('session_metadata.value', '=', value),
        ),
      );
    }
    const [{ total }, rows] = await Promise.all([
      filtered.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
      filtered
        .selectAll('sessions')
        .orderBy('sessions.last_interaction_at', 'desc')
        .orderBy('sessions.id', 'desc')
        .limit(query.limit)
        .offset(query.offset)
        .execute(),
    ]);
    return { total: Number(total), sessions: rows.map(toSession) };
  }

  /**
   * Reserves the session for `runId`, if no run holds it and none waits in its line. A reservation whose run was never created
   * (the database went away between the two writes, and could not be told to release it) is taken
   * over once it is a minute old: a run is created within milliseconds of its reservation.
   */
  async claimForRun(sessionId: string, runId: string): Promise<boolean> {
    const staleBelow = idBoundAt('run', Date.now() - STALE_RESERVATION_MS);
    const result = await this.#db
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

  async releaseRun(sessionId: string, runId: string): Promise<void> {
    await releaseSessionRun(this.#db, sessionId, runId);
  }

  /** Hands the session, if free, to its oldest held run (a hand-over a run's end could not make). */
  promoteHeldRun(sessionId: string): Promise<string | undefined> {
    return this.#db.transaction().execute(async (trx) => {
      const session = await lockSession(trx, sessionId);
      if (session?.active_run_id !== null) return undefined;
      return promoteHeldRun(trx, sessionId);
    });
  }

  /**
   * A message with `ifBusy` `interrupt` or `rollback` (held as `runId`): marks the run holding the
   * session with `cut` (what its end leaves in the history) and requests the cancel of the runs held
   * before `runId`. Returns the runs to cancel, the holder first.
   */
  preempt(sessionId: string, runId: string, cut: SessionCut): Promise<string[]> {
    return this.#db.transaction().execute(async (trx) => {
      const session = await lockSession(trx, sessionId);
      if (!session) return [];
      const holder = session.active_run_id;
      if (holder !== null && holder !== runId) {
        await trx
          .updateTable('runs')
          .set({ session_cut: cut })
          .where('id', '=', holder)
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
      return [...(holder !== null && holder !== runId ? [holder] : []), ...held];
    });
  }

  /** The runs waiting in the session's line, oldest first. */
  heldRuns(sessionId: string): Promise<string[]> {
    return heldRunIds(this.#db, sessionId);
  }

  /** Ends the session; returns the run that was in flight, if any. */
  async end(workspaceId: string, id: string): Promise<{ activeRunId: string | null } | undefined> {
    const result = await this.#db
      .updateTable('sessions')
      .set({ status: 'ended' })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return undefined;
    // Read after the update: a claim either happened before it (and is seen here) or fails (ended).
    const session = await this.findById(workspaceId, id);
    return { activeRunId: session?.activeRunId ?? null };
  }

  /** How many items the session's conversation holds (messages and retained tool pairs). */
  async historyLength(sessionId: string): Promise<number> {
    const row = await this.#db
      .selectFrom('session_messages')
      .select((eb) => eb.fn.countAll<string | number>().as('items'))
      .where('session_id', '=', sessionId)
      .executeTakeFirst();
    return Number(row?.items ?? 0);
  }

  /**
   * The conversation in order, retained tool pairs included: what a message run replays; with
   * `items`, only the first `items` of it (what the session held when the run was created).
   */
  async history(sessionId: string, items?: number): Promise<SessionItem[]> {
    let query = this.#db
      .selectFrom('session_messages')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('position');
    if (items !== undefined) query = query.limit(items);
    const rows = await query.execute();
    return rows.map((row): SessionItem => {
      if (row.role === 'tool_pair')
        return { role: 'tool_pair', tool: fromJson<RetainedToolPair>(row.tool ?? '{}') };
      return {
        role: row.role as 'user' | 'assistant' | 'system',
        content: row.content,
        ...(row.attachments !== null && { attachments: fromJson<AttachmentMetadata[]>(row.attachments) }),
      };
    });
  }

  /** Replayable messages (`seq` ascending); `last` keeps only the last N. */
  async messages(sessionId: string, last?: number): Promise<SessionMessage[]> {
    let query = this.#db
      .selectFrom('session_messages')
      .select(['seq', 'role', 'content', 'attachments'])
      .where('session_id', '=', sessionId)
      .where('seq', 'is not', null);
    query = last === undefined ? query.orderBy('seq', 'asc') : query.orderBy('seq', 'desc').limit(last);
    const rows = await query.execute();
    const ordered = last === undefined ? rows : rows.reverse();
    return ordered.map((row) => ({
      seq: row.seq ?? 0,
      role: row.role as SessionMessage['role'],
      content: row.content,
      attachments: row.attachments === null ? null : fromJson<AttachmentMetadata[]>(row.attachments),
    }));
  }
}

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

function toSession(row: Selectable<SessionsTable>): Session {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    apiKeyId: row.api_key_id,
    status: row.status as SessionStatus,
    spec: fromJson<SessionSpec>(row.spec),
    metadata: fromJson<Record<string, string>>(row.metadata),
    summary: row.summary,
    messageCount: row.message_count,
    activeRunId: row.active_run_id,
    createdAt: row.created_at,
    lastInteractionAt: row.last_interaction_at,
  };
}
