import type { Kysely } from 'kysely';
import { nowIso } from '../json-column.ts';
import type { Database } from '../schema.ts';

export interface StoredCheckpoint<T> {
  /** The last seq of the run's log when the checkpoint was taken. */
  seq: number;
  state: T;
}

/** One checkpoint per run, replaced at each tool-round boundary. */
export class RunCheckpointRepository {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async save(runId: string, seq: number, state: unknown): Promise<void> {
    const text = JSON.stringify(state);
    const updatedAt = nowIso();
    await this.#db
      .insertInto('run_checkpoints')
      .values({ run_id: runId, seq, state: text, updated_at: updatedAt })
      .onConflict((conflict) =>
        conflict.column('run_id').doUpdateSet({ seq, state: text, updated_at: updatedAt }),
      )
      .execute();
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
