import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import { newId } from '../../domain/ids.ts';
import type { AttachmentMetadata, RetainedToolPair, SessionItem } from '../../domain/session-history.ts';
import type {
  Session,
  SessionCut,
  SessionMessage,
  SessionSpec,
  SessionStatus,
} from '../../domain/session.ts';
import type { NewSession, SessionListQuery, SessionStore } from '../../engine/ports.ts';
import { fromJson, nowIso, toJson } from '../json-column.ts';
import type { Database, SessionsTable } from '../schema.ts';
import {
  claimSession,
  heldRunIds,
  lockSession,
  preemptLine,
  promoteHeldRun,
  releaseSessionRun,
} from './session-run-line.ts';

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

  /** Reserves the session for `runId`, if no run holds it and none waits in its line (`claimSession`). */
  claimForRun(sessionId: string, runId: string): Promise<boolean> {
    return claimSession(this.#db, sessionId, runId);
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
      return session ? preemptLine(trx, sessionId, session.active_run_id, runId, cut) : [];
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
