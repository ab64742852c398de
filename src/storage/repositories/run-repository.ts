import type { Kysely, Selectable } from 'kysely';
import { newId } from '../../domain/ids.ts';
import type { FailureReason, Run, RunState, RunStatus, RunSummary } from '../../domain/run.ts';
import type { RunSpec } from '../../domain/run-spec.ts';
import type { RunTraceContext } from '../../domain/trace-context.ts';
import type { NewRun, RunListQuery, RunStore } from '../../engine/ports.ts';
import type { ModelInfo, TokenUsage } from '../../domain/usage.ts';
import { isPostgres } from '../dialect.ts';
import { fromJson, fromNullableJson, nowIso, toJson } from '../json-column.ts';
import { PreparedQuery, type Param } from '../prepared-query.ts';
import type { Database, RunsTable } from '../schema.ts';
import { admitsNewRun, lockWorkspace } from './run-admission.ts';
import { listRuns } from './run-list-query.ts';

type RunRow = Selectable<RunsTable>;

export class RunRepository implements RunStore {
  readonly #db: Kysely<Database>;
  // The statements every run goes through, compiled once (see PreparedQuery).
  readonly #insert: PreparedQuery<keyof RunRow, unknown>;
  readonly #insertAdmitting: PreparedQuery<keyof RunRow, Pick<RunRow, 'dispatch' | 'admission'>>;
  readonly #lockWorkspace: PreparedQuery<'workspaceId', unknown>;
  readonly #postgres: boolean;
  readonly #findState: PreparedQuery<
    'workspaceId' | 'id',
    Pick<RunRow, 'id' | 'status' | 'ended_at' | 'cancel_requested_at'>
  >;
  readonly #claim: PreparedQuery<'id' | 'now' | 'admission', RunRow>;
  readonly #claimAdmission: PreparedQuery<'id' | 'now' | 'admission', RunRow>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
    this.#postgres = isPostgres(db);
    const columns = (param: Param<keyof RunRow>) => ({
      id: param<string>('id'),
      workspace_id: param<string>('workspace_id'),
      agent_id: param<string | null>('agent_id'),
      session_id: param<string | null>('session_id'),
      api_key_id: param<string | null>('api_key_id'),
      status: param<string>('status'),
      spec: param<string>('spec'),
      metadata: param<string>('metadata'),
      final_text: param<string | null>('final_text'),
      error: param<string | null>('error'),
      failure_reason: param<string | null>('failure_reason'),
      tokens: param<string | null>('tokens'),
      turns: param<number | null>('turns'),
      model: param<string | null>('model'),
      cancel_requested_at: param<string | null>('cancel_requested_at'),
      attempt: param<number>('attempt'),
      dispatch: param<string | null>('dispatch'),
      wake_at: param<string | null>('wake_at'),
      admission: param<number>('admission'),
      session_cut: param<string | null>('session_cut'),
      trace_context: param<string | null>('trace_context'),
      created_at: param<string>('created_at'),
      updated_at: param<string>('updated_at'),
      ended_at: param<string | null>('ended_at'),
    });
    this.#insert = new PreparedQuery((param) => db.insertInto('runs').values(columns(param)));
    // Admitted in the insert itself when the workspace has room (on PostgreSQL after its lock).
    this.#insertAdmitting = new PreparedQuery((param) =>
      db
        .insertInto('runs')
        .values((eb) => {
          const admits = () => admitsNewRun(db, eb, param<string>('workspace_id'));
          return {
            ...columns(param),
            dispatch: eb.case().when(admits()).then('admitted').else('waiting').end(),
            admission: eb.case().when(admits()).then(1).else(0).end(),
          };
        })
        .returning(['dispatch', 'admission']),
    );
    this.#lockWorkspace = new PreparedQuery((param) => lockWorkspace(db, param<string>('workspaceId'), true));
    this.#findState = new PreparedQuery((param) =>
      db
        .selectFrom('runs')
        .select(['id', 'status', 'ended_at', 'cancel_requested_at'])
        .where('workspace_id', '=', param<string>('workspaceId'))
        .where('id', '=', param<string>('id')),
    );
    const claim = (param: Param<'id' | 'now' | 'admission'>) =>
      db
        .updateTable('runs')
        .set((eb) => ({
          attempt: eb('attempt', '+', 1),
          // A run waiting for client tool results stays `waiting` through a takeover or a wake-up: its
          // round ends the wait once no call is pending (ToolCallStore.endWaiting).
          status: eb.case().when('status', '=', 'waiting').then('waiting').else('running').end(),
          updated_at: param<string>('now'),
        }))
        .where('id', '=', param<string>('id'))
        .where('dispatch', '=', 'admitted');
    this.#claim = new PreparedQuery((param) => claim(param).returningAll());
    this.#claimAdmission = new PreparedQuery((param) =>
      claim(param).where('admission', '=', param<number>('admission')).returningAll(),
    );
  }

  async create(input: NewRun): Promise<Run> {
    const row = newRow(input);
    await this.#store(row, input.metadata, false, async (db) => {
      await this.#insert.execute(db, row);
    });
    return createdRun(row, input);
  }

  async createAdmitting(
    input: Omit<NewRun, 'heldBySession'>,
  ): Promise<{ run: Run; admission: number | undefined }> {
    const row = newRow(input);
    let admission: number | undefined;
    await this.#store(row, input.metadata, this.#postgres, async (db) => {
      if (this.#postgres) await this.#lockWorkspace.execute(db, { workspaceId: row.workspace_id });
      const stored = await this.#insertAdmitting.first(db, row);
      if (stored?.dispatch === 'admitted') admission = Number(stored.admission);
    });
    return { run: createdRun(row, input), admission };
  }

  /**
   * The insert alone (one statement: atomic on SQLite), or in one transaction with the run's metadata
   * rows (the list's metadata filters read them, migration 0014) or what `locks` asks for.
   */
  async #store(
    row: RunRow,
    metadata: Record<string, string>,
    locks: boolean,
    insert: (db: Kysely<Database>) => Promise<void>,
  ): Promise<void> {
    const entries = Object.entries(metadata);
    if (entries.length === 0 && !locks) return insert(this.#db);
    await this.#db.transaction().execute(async (trx) => {
      await insert(trx);
      if (entries.length === 0) return;
      await trx
        .insertInto('run_metadata')
        .values(
          entries.map(([key, value]) => ({
            run_id: row.id,
            workspace_id: row.workspace_id,
            key,
            value,
            created_at: row.created_at,
          })),
        )
        .execute();
    });
  }

  list(workspaceId: string, query: RunListQuery): Promise<RunSummary[]> {
    return listRuns(this.#db, workspaceId, query);
  }

  async findById(workspaceId: string, id: string): Promise<Run | undefined> {
    const row = await this.#db
      .selectFrom('runs')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toRun(row);
  }

  /** Status only: no spec, metadata or usage to read and parse (stream opens, cancels, tool results). */
  async findState(workspaceId: string, id: string): Promise<RunState | undefined> {
    const row = await this.#findState.first(this.#db, { workspaceId, id });
    return (
      row && {
        id: row.id,
        status: row.status as RunStatus,
        endedAt: row.ended_at,
        cancelRequestedAt: row.cancel_requested_at,
      }
    );
  }

  async claimAttempt(id: string, admission?: number): Promise<{ run: Run; attempt: number } | undefined> {
    const now = nowIso();
    const row =
      admission === undefined
        ? await this.#claim.first(this.#db, { id, now, admission: null })
        : await this.#claimAdmission.first(this.#db, { id, now, admission });
    return row && { run: toRun(row), attempt: Number(row.attempt) };
  }

  /** Records a cancellation request (the stored flag); the first request's time is kept. */
  async requestCancel(id: string): Promise<void> {
    await this.#db
      .updateTable('runs')
      .set({ cancel_requested_at: nowIso() })
      .where('id', '=', id)
      .where('cancel_requested_at', 'is', null)
      .where('ended_at', 'is', null)
      .execute();
  }
}

function newRow(input: NewRun): RunRow {
  const now = nowIso();
  return {
    id: input.id ?? newId('run'),
    workspace_id: input.workspaceId,
    agent_id: input.agentId,
    session_id: input.sessionId,
    api_key_id: input.apiKeyId,
    status: 'queued',
    spec: toJson(input.spec),
    metadata: toJson(input.metadata),
    final_text: null,
    error: null,
    failure_reason: null,
    tokens: null,
    turns: null,
    model: null,
    cancel_requested_at: null,
    attempt: 0,
    // A message run for a busy session waits for the session before it waits for a slot.
    dispatch: input.heldBySession ? 'session' : 'waiting',
    wake_at: null,
    admission: 0,
    session_cut: null,
    trace_context: input.traceContext ? toJson(input.traceContext) : null,
    created_at: now,
    updated_at: now,
    ended_at: null,
  };
}

/** The run just stored, from what was given: its JSON columns are not parsed back. */
function createdRun(row: RunRow, input: NewRun): Run {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    sessionId: row.session_id,
    apiKeyId: row.api_key_id,
    status: 'queued',
    spec: input.spec,
    metadata: input.metadata,
    finalText: null,
    error: null,
    failureReason: null,
    tokens: null,
    turns: null,
    model: null,
    cancelRequestedAt: null,
    traceContext: input.traceContext ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    endedAt: null,
  };
}

function toRun(row: Selectable<RunsTable>): Run {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    sessionId: row.session_id,
    apiKeyId: row.api_key_id,
    status: row.status as RunStatus,
    spec: fromJson<RunSpec>(row.spec),
    metadata: fromJson<Record<string, string>>(row.metadata),
    finalText: row.final_text,
    error: row.error,
    failureReason: fromNullableJson<FailureReason>(row.failure_reason),
    tokens: fromNullableJson<TokenUsage>(row.tokens),
    turns: row.turns,
    model: fromNullableJson<ModelInfo>(row.model),
    cancelRequestedAt: row.cancel_requested_at,
    traceContext: fromNullableJson<RunTraceContext>(row.trace_context),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    endedAt: row.ended_at,
  };
}
