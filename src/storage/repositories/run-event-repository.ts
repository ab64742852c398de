import type { Kysely } from 'kysely';
import { isPostgres } from '../dialect.ts';
import type { EventBatch, EventStore } from '../../engine/ports.ts';
import type { SerializedRunEvent } from '../../domain/run.ts';
import { nowIso, toJson } from '../json-column.ts';
import { appendSessionTurn, releaseSessionRun } from './session-repository.ts';
import type { Database } from '../schema.ts';

/**
 * Runs whose batch carries an attempt that is no longer the run's: a worker
 * that lost its lease must not write. On PostgreSQL the rows stay locked until
 * commit, so a takeover waits for an in-flight append instead of racing it.
 */
async function fencedRuns(trx: Kysely<Database>, batches: readonly EventBatch[]): Promise<Set<string>> {
  const fenced = new Set<string>();
  const checked = batches.filter((batch) => batch.attempt !== undefined);
  if (checked.length === 0) return fenced;
  let query = trx
    .selectFrom('runs')
    .select(['id', 'attempt'])
    .where(
      'id',
      'in',
      checked.map((batch) => batch.runId),
    );
  if (isPostgres(trx)) query = query.forUpdate();
  const attempts = new Map((await query.execute()).map((row) => [row.id, Number(row.attempt)]));
  for (const batch of checked) if (attempts.get(batch.runId) !== batch.attempt) fenced.add(batch.runId);
  return fenced;
}

/**
 * The persisted event log, the source of truth of every run. All batches of
 * one append commit in one transaction with the terminal outcomes they carry;
 * a duplicate `(run_id, seq)` fails the whole append, so a log never holds a
 * gap or a repeat and a terminal event never exists without its outcome.
 */
export class RunEventRepository implements EventStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async append(batches: readonly EventBatch[]): Promise<ReadonlySet<string>> {
    const createdAt = nowIso();
    return this.#db.transaction().execute(async (trx) => {
      const fenced = await fencedRuns(trx, batches);
      const accepted = fenced.size === 0 ? batches : batches.filter((batch) => !fenced.has(batch.runId));
      await this.#write(trx, accepted, createdAt);
      return fenced;
    });
  }

  async #write(trx: Kysely<Database>, batches: readonly EventBatch[], createdAt: string): Promise<void> {
    const rows = batches.flatMap(({ runId, events }) =>
      events.map((event) => ({
        run_id: runId,
        seq: event.seq,
        type: event.type,
        data: event.dataJson,
        created_at: createdAt,
      })),
    );
    if (rows.length === 0) return;
    await trx.insertInto('run_events').values(rows).execute();
    for (const { runId, outcome, session } of batches) {
      if (session) {
        if (session.append) await appendSessionTurn(trx, session.sessionId, session.runId, session.append);
        else await releaseSessionRun(trx, session.sessionId, session.runId);
      }
      if (!outcome) continue;
      await trx
        .updateTable('runs')
        .set({
          status: outcome.status,
          final_text: outcome.finalText,
          error: outcome.error,
          failure_reason: outcome.failureReason && toJson(outcome.failureReason),
          tokens: toJson(outcome.tokens),
          turns: outcome.turns,
          model: toJson(outcome.model),
          updated_at: createdAt,
          ended_at: createdAt,
        })
        .where('id', '=', runId)
        .execute();
    }
  }

  /** Events with `seq > afterSeq`, in order, at most `limit`. */
  async readAfter(runId: string, afterSeq: number, limit = 1000): Promise<SerializedRunEvent[]> {
    const rows = await this.#db
      .selectFrom('run_events')
      .select(['seq', 'type', 'data'])
      .where('run_id', '=', runId)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ seq: row.seq, type: row.type, dataJson: row.data }));
  }

  /** The highest seq written for the run, 0 when its log is empty. */
  async lastSeq(runId: string): Promise<number> {
    const row = await this.#db
      .selectFrom('run_events')
      .select((eb) => eb.fn.max('seq').as('last'))
      .where('run_id', '=', runId)
      .executeTakeFirst();
    return Number(row?.last ?? 0);
  }
}
