import type { Kysely } from 'kysely';
import type { EventBatch, EventStore } from '../../engine/ports.ts';
import type { SerializedRunEvent } from '../../domain/run.ts';
import { nowIso, toJson } from '../json-column.ts';
import { appendSessionTurn, releaseSessionRun } from './session-repository.ts';
import type { Database } from '../schema.ts';

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

  async append(batches: readonly EventBatch[]): Promise<void> {
    const createdAt = nowIso();
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
    await this.#db.transaction().execute(async (trx) => {
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
    });
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
