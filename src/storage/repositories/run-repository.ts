import type { Kysely, Selectable } from 'kysely';
import { newId } from '../../domain/ids.ts';
import type { Run, RunStatus } from '../../domain/run.ts';
import { fromJson, fromNullableJson, nowIso, toJson } from '../json-column.ts';
import type { Database, RunsTable } from '../schema.ts';

export interface NewRun {
  workspaceId: string;
  agentId: string | null;
  sessionId: string | null;
  apiKeyId: string | null;
  spec: Record<string, unknown>;
  metadata: Record<string, string>;
}

export interface RunOutcome {
  status: RunStatus;
  finalText: string | null;
  error: string | null;
  failureReason: Record<string, unknown> | null;
  tokens: Record<string, number>;
  turns: number;
  model: Record<string, unknown>;
}

export class RunRepository {
  readonly #db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(input: NewRun): Promise<Run> {
    const now = nowIso();
    const row = {
      id: newId('run'),
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
      last_seq: 0,
      created_at: now,
      updated_at: now,
      ended_at: null,
    } satisfies Selectable<RunsTable>;
    await this.#db.insertInto('runs').values(row).execute();
    return toRun(row);
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

  async setStatus(id: string, status: RunStatus): Promise<void> {
    await this.#db.updateTable('runs').set({ status, updated_at: nowIso() }).where('id', '=', id).execute();
  }

  /** Records the terminal outcome once; a second call for an ended run changes nothing. */
  async finish(id: string, outcome: RunOutcome): Promise<boolean> {
    const now = nowIso();
    const result = await this.#db
      .updateTable('runs')
      .set({
        status: outcome.status,
        final_text: outcome.finalText,
        error: outcome.error,
        failure_reason: outcome.failureReason && toJson(outcome.failureReason),
        tokens: toJson(outcome.tokens),
        turns: outcome.turns,
        model: toJson(outcome.model),
        updated_at: now,
        ended_at: now,
      })
      .where('id', '=', id)
      .where('ended_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}

function toRun(row: Selectable<RunsTable>): Run {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    sessionId: row.session_id,
    apiKeyId: row.api_key_id,
    status: row.status as RunStatus,
    spec: fromJson<Record<string, unknown>>(row.spec),
    metadata: fromJson<Record<string, string>>(row.metadata),
    finalText: row.final_text,
    error: row.error,
    failureReason: fromNullableJson<Record<string, unknown>>(row.failure_reason),
    tokens: fromNullableJson<Record<string, number>>(row.tokens),
    turns: row.turns,
    model: fromNullableJson<Record<string, unknown>>(row.model),
    lastSeq: row.last_seq,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    endedAt: row.ended_at,
  };
}
