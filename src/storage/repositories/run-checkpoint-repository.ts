import type { Kysely } from 'kysely';
import { nowIso } from '../json-column.ts';
import { fencedRuns } from './attempt-fence.ts';
import type { Database } from '../schema.ts';
import type { CheckpointStore, StoredCheckpoint } from '../../engine/ports.ts';

/** One checkpoint per run, replaced at each tool-round boundary. */
export class RunCheckpointRepository implements CheckpointStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /**
   * Replaces the run's checkpoint; with `attempt`, only while that attempt still owns the run.
   * Returns false when a newer attempt has taken the run over (nothing is written).
   */
  async save(runId: string, seq: number, state: unknown, attempt?: number): Promise<boolean> {
    const text = JSON.stringify(state);
    const updatedAt = nowIso();
    return this.#db.transaction().execute(async (trx) => {
      if ((await fencedRuns(trx, [{ runId, attempt }])).size > 0) return false;
      await trx
        .insertInto('run_checkpoints')
        .values({ run_id: runId, seq, state: text, updated_at: updatedAt })
        .onConflict((conflict) =>
          conflict.column('run_id').doUpdateSet({ seq, state: text, updated_at: updatedAt }),
        )
        .execute();
      return true;
    });
  }

  async load<T>(runId: string): Promise<StoredCheckpoint<T> | undefined> {
    const row = await this.#db
      .selectFrom('run_checkpoints')
      .select(['seq', 'state'])
      .where('run_id', '=', runId)
      .executeTakeFirst();
    return row && { seq: row.seq, state: JSON.parse(row.state) as T };
  }
}
