import type { Kysely, Selectable } from 'kysely';
import type { FeedbackVerdict, RunFeedback } from '../../domain/feedback.ts';
import { newId } from '../../domain/ids.ts';
import { nowIso } from '../json-column.ts';
import type { FeedbackInput, FeedbackStore } from '../../engine/ports.ts';
import type { Database, RunFeedbackTable } from '../schema.ts';

export type { FeedbackInput };

export class FeedbackRepository implements FeedbackStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Inserts the run's verdict or replaces it (last write wins); `created` tells which happened. */
  async upsert(input: FeedbackInput): Promise<{ feedback: RunFeedback; created: boolean }> {
    const now = nowIso();
    const id = newId('feedback');
    const inserted = await this.#db
      .insertInto('run_feedback')
      .values({
        id,
        workspace_id: input.workspaceId,
        run_id: input.runId,
        verdict: input.verdict,
        explanation: input.explanation,
        content_snapshot: input.contentSnapshot,
        author_api_key_id: input.authorApiKeyId,
        created_at: now,
        updated_at: now,
      })
      .onConflict((conflict) =>
        conflict.columns(['workspace_id', 'run_id']).doUpdateSet({
          verdict: input.verdict,
          explanation: input.explanation,
          content_snapshot: input.contentSnapshot,
          author_api_key_id: input.authorApiKeyId,
          updated_at: now,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return { feedback: toFeedback(inserted), created: inserted.id === id };
  }

  async listByWorkspace(workspaceId: string, limit: number, offset: number): Promise<RunFeedback[]> {
    const rows = await this.#db
      .selectFrom('run_feedback')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map(toFeedback);
  }
}

function toFeedback(row: Selectable<RunFeedbackTable>): RunFeedback {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    runId: row.run_id,
    verdict: row.verdict as FeedbackVerdict,
    explanation: row.explanation,
    contentSnapshot: row.content_snapshot,
    authorApiKeyId: row.author_api_key_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
