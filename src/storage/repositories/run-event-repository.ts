import type { Kysely } from 'kysely';
import type { RunEvent } from '../../domain/run.ts';
import { nowIso } from '../json-column.ts';
import type { Database } from '../schema.ts';

export interface RunEventBatch {
  runId: string;
  events: readonly RunEvent[];
}

/**
 * The persisted event log, the source of truth of every run. Appends are
 * batched: all events of one batch commit in one transaction, and a duplicate
 * `(run_id, seq)` fails the whole batch, so a log never holds a gap or a repeat.
 */
export class RunEventRepository {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async append(batches: readonly RunEventBatch[]): Promise<void> {
    const createdAt = nowIso();
    const rows = batches.flatMap(({ runId, events }) =>
      events.map((event) => ({
        run_id: runId,
        seq: event.seq,
        type: event.type,
        data: JSON.stringify(event.data),
        created_at: createdAt,
      })),
    );
    if (rows.length === 0) return;
    await this.#db.transaction().execute(async (trx) => {
      await trx.insertInto('run_events').values(rows).execute();
      for (const { runId, events } of batches) {
        const last = events.at(-1);
        if (last) await trx.updateTable('runs').set({ last_seq: last.seq }).where('id', '=', runId).execute();
      }
    });
  }

  /** Events with `seq > afterSeq`, in order. */
  async readAfter(runId: string, afterSeq: number, limit = 1000): Promise<RunEvent[]> {
    const rows = await this.#db
      .selectFrom('run_events')
      .select(['seq', 'type', 'data'])
      .where('run_id', '=', runId)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      seq: row.seq,
      type: row.type,
      data: JSON.parse(row.data) as Record<string, unknown>,
    }));
  }
}
