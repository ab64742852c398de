import type { Kysely, Selectable } from 'kysely';
import type { ClientToolResult, ToolCallRecord, ToolCallStatus } from '../../domain/tool-call.ts';
import { fromNullableJson, nowIso, toJson } from '../json-column.ts';
import type { NewToolCall, ToolCallStore } from '../../engine/ports.ts';
import type { Database, ToolCallsTable } from '../schema.ts';
import { fencedRuns } from './attempt-fence.ts';
import { insertWebhookDeliveries } from './webhook-delivery-repository.ts';

/** Pending client tool calls and their answers; the row is what makes an answer count exactly once. */
export class ToolCallRepository implements ToolCallStore {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /**
   * Stores the calls as pending and, in the same transaction, shows the run as `waiting` (before its
   * `local_tool_call` events are visible: a client that sees a call finds the run waiting for it).
   * Fenced like the event log: a worker whose lease lapsed must not store calls beside (or, its insert
   * committing first, in the way of) those of the attempt that took the run over, whose own insert
   * would then fail and end the run. On PostgreSQL the run's row stays locked until commit, so a
   * takeover waits for this insert and then finds its calls stored. A call stored again stays one row.
   */
  async insertPending(runId: string, calls: readonly NewToolCall[], attempt?: number): Promise<boolean> {
    if (calls.length === 0) return true;
    const createdAt = nowIso();
    const inserted = await this.#db.transaction().execute(async (trx) => {
      if ((await fencedRuns(trx, [{ runId, attempt }])).size > 0) return false;
      await trx
        .insertInto('tool_calls')
        .values(
          calls.map((call) => ({
            run_id: runId,
            tool_use_id: call.toolUseId,
            name: call.name,
            kind: call.kind,
            status: 'pending',
            result: null,
            created_at: createdAt,
            answered_at: null,
          })),
        )
        // An earlier attempt stored the call while it owned the run, but its events never landed: the
        // attempt that took over from the log before them asked the model again, which may reuse the id.
        .onConflict((conflict) =>
          conflict
            .columns(['run_id', 'tool_use_id'])
            .doUpdateSet((eb) => ({ name: eb.ref('excluded.name'), kind: eb.ref('excluded.kind') }))
            .where('tool_calls.status', '=', 'pending'),
        )
        .execute();
      const parked = await trx
        .updateTable('runs')
        .set({ status: 'waiting' })
        .where('id', '=', runId)
        .where('status', '=', 'running')
        .executeTakeFirst();
      if (parked.numUpdatedRows === 0n) return true;
      // A waiting period begins: its run.waiting deliveries commit with it (the outbox). The period is
      // told apart by the run's count of calls so far, which every later round raises.
      const { count } = await trx
        .selectFrom('tool_calls')
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .where('run_id', '=', runId)
        .executeTakeFirstOrThrow();
      await insertWebhookDeliveries(trx, runId, 'run.waiting', Number(count), createdAt);
      return true;
    });
    if (inserted) this.#onWaiting?.();
    return inserted;
  }

  /** Told after a run starts a waiting period (its webhook deliveries can be sent now). */
  #onWaiting: (() => void) | undefined;
  onWaiting(listener: () => void): void {
    this.#onWaiting = listener;
  }

  /**
   * A `waiting` run with no call left pending is `running` again. Run after each answer is committed
   * (the last of concurrent answers then sees every other) and when the run resumes its round. The
   * run's `updated_at` stays: the sweep finds parked runs by answers newer than it.
   */
  async endWaiting(runId: string): Promise<void> {
    await this.#db
      .updateTable('runs')
      .set({ status: 'running' })
      .where('id', '=', runId)
      .where('status', '=', 'waiting')
      .where(({ not, exists, selectFrom, lit }) =>
        not(
          exists(
            selectFrom('tool_calls')
              .select(lit(1).as('one'))
              .where('tool_calls.run_id', '=', runId)
              .where('tool_calls.status', '=', 'pending'),
          ),
        ),
      )
      .execute();
  }

  /** Stores the answer if the call is still pending: the answered call, or none when it is unknown or no longer pending. */
  async answer(
    runId: string,
    toolUseId: string,
    result: ClientToolResult,
  ): Promise<ToolCallRecord | undefined> {
    const row = await this.#db
      .updateTable('tool_calls')
      .set({ status: 'answered', result: toJson(result), answered_at: nowIso() })
      .where('run_id', '=', runId)
      .where('tool_use_id', '=', toolUseId)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst();
    return row && toRecord(row);
  }

  /** Marks the calls that are still pending as timed out (later answers are refused); returns those it marked. */
  async expire(runId: string, toolUseIds: readonly string[]): Promise<ToolCallRecord[]> {
    if (toolUseIds.length === 0) return [];
    const rows = await this.#db
      .updateTable('tool_calls')
      .set({ status: 'timed_out' })
      .where('run_id', '=', runId)
      .where('tool_use_id', 'in', toolUseIds)
      .where('status', '=', 'pending')
      .returningAll()
      .execute();
    return rows.map(toRecord);
  }

  async find(runId: string, toolUseIds: readonly string[]): Promise<ToolCallRecord[]> {
    if (toolUseIds.length === 0) return [];
    const rows = await this.#db
      .selectFrom('tool_calls')
      .selectAll()
      .where('run_id', '=', runId)
      .where('tool_use_id', 'in', toolUseIds)
      .execute();
    return rows.map(toRecord);
  }

  async findPending(runId: string): Promise<ToolCallRecord[]> {
    const rows = await this.#db
      .selectFrom('tool_calls')
      .selectAll()
      .where('run_id', '=', runId)
      .where('status', '=', 'pending')
      .orderBy('created_at')
      .orderBy('tool_use_id')
      .execute();
    return rows.map(toRecord);
  }

  async findOne(runId: string, toolUseId: string): Promise<ToolCallRecord | undefined> {
    const [record] = await this.find(runId, [toolUseId]);
    return record;
  }
}

function toRecord(row: Selectable<ToolCallsTable>): ToolCallRecord {
  return {
    runId: row.run_id,
    toolUseId: row.tool_use_id,
    name: row.name,
    kind: row.kind,
    status: row.status as ToolCallStatus,
    result: fromNullableJson<ClientToolResult>(row.result),
    createdAt: row.created_at,
    answeredAt: row.answered_at,
  };
}
