import type { Kysely } from 'kysely';
import type { EventBatch, EventStore, RunEventLookup } from '../../engine/ports.ts';
import type { RunEventType, SerializedRunEvent } from '../../domain/run-events.ts';
import { nowIso, toJson } from '../json-column.ts';
import { isPostgres } from '../dialect.ts';
import { PreparedQuery } from '../prepared-query.ts';
import { fencedRuns } from './attempt-fence.ts';
import { endSessionRun } from './session-run-end.ts';
import { insertWebhookDeliveries } from './webhook-delivery-repository.ts';
import { terminalWebhookEvent } from '../../domain/webhooks.ts';
import type { Database } from '../schema.ts';

/** Rows per insert statement: a bigger commit is split, so at most this many statement shapes get compiled. */
const MAX_ROWS_PER_INSERT = 100;

/** The parameter names of row `i` of the multi-row insert, made once rather than per event. */
const ROW_PARAMS = Array.from({ length: MAX_ROWS_PER_INSERT }, (_, i) => ({
  runId: `r${i}`,
  seq: `s${i}`,
  type: `t${i}`,
  data: `d${i}`,
}));

type OutcomeParam =
  'runId' | 'status' | 'finalText' | 'error' | 'failureReason' | 'tokens' | 'turns' | 'model' | 'endedAt';

/**
 * The persisted event log, the source of truth of every run. All batches of
 * one append commit in one transaction with the terminal outcomes they carry;
 * a duplicate `(run_id, seq)` fails the whole append, so a log never holds a
 * gap or a repeat and a terminal event never exists without its outcome.
 */
export class RunEventRepository implements EventStore, RunEventLookup {
  readonly #db: Kysely<Database>;
  readonly #everyRunFenced: boolean;
  /** The event insert for each row count used so far. */
  readonly #inserts = new Map<number, PreparedQuery<string, unknown>>();
  readonly #recordOutcome: PreparedQuery<OutcomeParam, { webhooks: boolean | number }>;
  readonly #readAfter: PreparedQuery<
    'runId' | 'afterSeq' | 'limit',
    { seq: number; type: string; data: string }
  >;

  constructor(db: Kysely<Database>) {
    this.#db = db;
    this.#everyRunFenced = isPostgres(db);
    this.#recordOutcome = new PreparedQuery((param) =>
      db
        .updateTable('runs')
        .set({
          status: param('status'),
          final_text: param('finalText'),
          error: param('error'),
          failure_reason: param('failureReason'),
          tokens: param('tokens'),
          turns: param('turns'),
          model: param('model'),
          updated_at: param('endedAt'),
          ended_at: param('endedAt'),
          dispatch: null,
          wake_at: null,
        })
        .where('id', '=', param<string>('runId'))
        // Whether the run's workspace has an endpoint at all: most have none, and then the terminal
        // commit makes no outbox select. Read in the same transaction as the outbox insert would be.
        .returning((eb) =>
          eb
            .exists(
              eb
                .selectFrom('webhook_endpoints as endpoint')
                .select('endpoint.id')
                .whereRef('endpoint.workspace_id', '=', 'runs.workspace_id')
                .where('endpoint.enabled', '=', 1),
            )
            .as('webhooks'),
        ),
    );
    this.#readAfter = new PreparedQuery((param) =>
      db
        .selectFrom('run_events')
        .select(['seq', 'type', 'data'])
        .where('run_id', '=', param<string>('runId'))
        .where('seq', '>', param<number>('afterSeq'))
        .orderBy('seq')
        .limit(param<number>('limit')),
    );
  }

  async append(batches: readonly EventBatch[]): Promise<ReadonlySet<string>> {
    const createdAt = nowIso();
    return this.#db.transaction().execute(async (trx) => {
      // On PostgreSQL `run_events` has no foreign key (migration 0022): the fence is what keeps events
      // of a run that does not exist (any more) out of the log, for writes without an attempt too.
      const fenced = await fencedRuns(trx, batches, { everyRun: this.#everyRunFenced });
      const accepted = fenced.size === 0 ? batches : batches.filter((batch) => !fenced.has(batch.runId));
      await this.#write(trx, accepted, createdAt);
      return fenced;
    });
  }

  async #write(trx: Kysely<Database>, batches: readonly EventBatch[], createdAt: string): Promise<void> {
    const values: Record<string, unknown> = { createdAt };
    let count = 0;
    for (const { runId, events } of batches) {
      for (const event of events) {
        const names = ROW_PARAMS[count] as (typeof ROW_PARAMS)[number];
        values[names.runId] = runId;
        values[names.seq] = event.seq;
        values[names.type] = event.type;
        values[names.data] = event.dataJson;
        count++;
        if (count === MAX_ROWS_PER_INSERT) {
          await this.#insert(count).execute(trx, values);
          count = 0;
        }
      }
    }
    if (count > 0) await this.#insert(count).execute(trx, values);
    for (const { runId, outcome, session } of batches) {
      if (session) await endSessionRun(trx, session);
      if (!outcome) continue;
      const ended = await this.#recordOutcome.first(trx, {
        runId,
        status: outcome.status,
        finalText: outcome.finalText,
        error: outcome.error,
        failureReason: outcome.failureReason && toJson(outcome.failureReason),
        tokens: toJson(outcome.tokens),
        turns: outcome.turns,
        model: toJson(outcome.model),
        endedAt: createdAt,
      });
      // The outbox: the run's webhook deliveries commit with its terminal event, or not at all.
      const event = terminalWebhookEvent(outcome.status);
      if (event && ended?.webhooks) await insertWebhookDeliveries(trx, runId, event, 0, createdAt);
    }
  }

  /** `insert into run_events … values (…), (…)` with `rows` rows named by ROW_PARAMS, all stamped `createdAt`. */
  #insert(rows: number): PreparedQuery<string, unknown> {
    let query = this.#inserts.get(rows);
    if (!query) {
      query = new PreparedQuery((param) =>
        this.#db.insertInto('run_events').values(
          ROW_PARAMS.slice(0, rows).map((names) => ({
            run_id: param<string>(names.runId),
            seq: param<number>(names.seq),
            type: param<string>(names.type),
            data: param<string>(names.data),
            created_at: param<string>('createdAt'),
          })),
        ),
      );
      this.#inserts.set(rows, query);
    }
    return query;
  }

  /** Events with `seq > afterSeq`, in order, at most `limit`. */
  async readAfter(runId: string, afterSeq: number, limit = 1000): Promise<SerializedRunEvent[]> {
    const { rows } = await this.#readAfter.execute(this.#db, { runId, afterSeq, limit });
    // The log holds only events the engine appended, each of a type of the union.
    return rows.map((row) => ({ seq: row.seq, type: row.type as RunEventType, dataJson: row.data }));
  }

  /** The run's latest event of one of `types`: read backwards along the `(run_id, seq)` key. */
  async latestOf(runId: string, types: readonly RunEventType[]): Promise<SerializedRunEvent | undefined> {
    if (types.length === 0) return undefined;
    const row = await this.#db
      .selectFrom('run_events')
      .select(['seq', 'type', 'data'])
      .where('run_id', '=', runId)
      .where('type', 'in', [...types])
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && { seq: row.seq, type: row.type as RunEventType, dataJson: row.data };
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
