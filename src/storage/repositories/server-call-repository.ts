import type { Kysely } from 'kysely';
import type { ToolKind } from '../../domain/tool-ref.ts';
import type { ServerCallOutcome, ServerCallRecord, ServerCallStore } from '../../engine/ports.ts';
import { fromNullableJson, nowIso, toJson } from '../json-column.ts';
import type { Database } from '../schema.ts';

/** Server-resolved calls: the row written before a call executes is what keeps it from running twice. */
export class ServerCallRepository implements ServerCallStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async begin(
    runId: string,
    calls: ReadonlyArray<{ toolUseId: string; name: string; kind: ToolKind }>,
  ): Promise<void> {
    if (calls.length === 0) return;
    const createdAt = nowIso();
    await this.#db
      .insertInto('server_tool_calls')
      .values(
        calls.map((call) => ({
          run_id: runId,
          tool_use_id: call.toolUseId,
          name: call.name,
          kind: call.kind,
          outcome: null,
          created_at: createdAt,
          finished_at: null,
        })),
      )
      .onConflict((conflict) => conflict.columns(['run_id', 'tool_use_id']).doNothing())
      .execute();
  }

  async finish(runId: string, toolUseId: string, outcome: ServerCallOutcome): Promise<void> {
    await this.#db
      .updateTable('server_tool_calls')
      .set({ outcome: toJson(outcome), finished_at: nowIso() })
      .where('run_id', '=', runId)
      .where('tool_use_id', '=', toolUseId)
      .where('outcome', 'is', null)
      .execute();
  }

  async find(runId: string, toolUseIds: readonly string[]): Promise<ServerCallRecord[]> {
    if (toolUseIds.length === 0) return [];
    const rows = await this.#db
      .selectFrom('server_tool_calls')
      .select(['tool_use_id', 'name', 'outcome'])
      .where('run_id', '=', runId)
      .where('tool_use_id', 'in', toolUseIds)
      .execute();
    return rows.map((row) => ({
      toolUseId: row.tool_use_id,
      name: row.name,
      outcome: fromNullableJson<ServerCallOutcome>(row.outcome),
    }));
  }
}
