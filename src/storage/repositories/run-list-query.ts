import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { RunStatus, RunSummary } from '../../domain/run.ts';
import type { ModelInfo, TokenUsage } from '../../domain/usage.ts';
import type { RunListQuery } from '../../engine/ports.ts';
import { fromJson, fromNullableJson } from '../json-column.ts';
import { isPostgres } from '../dialect.ts';
import type { Database } from '../schema.ts';

/**
 * A page of the runs list, newest first by `(created_at, id)`, paged by keyset (never OFFSET). The
 * page walks one index in list order (migration 0014): with a metadata filter, that filter's entries
 * (each further filter is one primary-key probe per candidate); otherwise the workspace's runs of the
 * agent, the session, the status (one), or all. Other filters are checked on the rows walked.
 */
export async function listRuns(
  db: Kysely<Database>,
  workspaceId: string,
  query: RunListQuery,
): Promise<RunSummary[]> {
  const rows = await withListSettings(db, query, (conn) => runListSelect(conn, workspaceId, query).execute());
  return rows.map((row) => ({
    id: row.id,
    status: row.status as RunStatus,
    agentId: row.agent_id,
    sessionId: row.session_id,
    metadata: fromJson<Record<string, string>>(row.metadata),
    tokens: fromNullableJson<TokenUsage>(row.tokens),
    turns: row.turns,
    model: fromNullableJson<ModelInfo>(row.model),
    createdAt: row.created_at,
    endedAt: row.ended_at,
  }));
}

/**
 * Runs `use` where the list's statement runs. The walk stops after `limit` matches, but PostgreSQL
 * costs a filtered walk as if it read the whole filter and picks a parallel plan for it: at 1,000,000
 * runs 60-70 ms where the serial walk takes 7 (bench/runs-list.ts). Only a walk that checks other
 * filters risks it, so only such a query pays the transaction that turns parallel plans off.
 */
export function withListSettings<T>(
  db: Kysely<Database>,
  query: RunListQuery,
  use: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  if (!isPostgres(db) || filterCount(query) < 2) return use(db);
  return db.transaction().execute(async (trx) => {
    await sql`set local max_parallel_workers_per_gather = 0`.execute(trx);
    return use(trx);
  });
}

/** How many filters the query combines (the statuses count as one, as does a credential's allowlist). */
function filterCount(query: RunListQuery): number {
  return (
    query.metadata.length +
    Number(query.statuses.length > 0) +
    Number(query.agentId !== undefined) +
    Number(query.sessionId !== undefined) +
    Number(query.agentScope !== undefined)
  );
}

/** The page's statement, unexecuted (the bench explains it). */
export function runListSelect(db: Kysely<Database>, workspaceId: string, query: RunListQuery) {
  const [first, ...rest] = query.metadata;
  // As the sessions list: with a metadata filter the scan starts from its index entries (CROSS JOIN
  // keeps that order on SQLite whatever its statistics say), and the page is ordered by their copy of
  // the run's key, which the index holds in order.
  let filtered: SelectQueryBuilder<Database, 'runs', object> = first
    ? db
        .selectFrom('run_metadata as first_filter')
        .crossJoin('runs')
        .where('first_filter.workspace_id', '=', workspaceId)
        .where('first_filter.key', '=', first.key)
        .where('first_filter.value', '=', first.value)
        .whereRef('runs.id', '=', 'first_filter.run_id')
    : db.selectFrom('runs');
  filtered = filtered.where('runs.workspace_id', '=', workspaceId);
  if (query.statuses.length === 1) filtered = filtered.where('runs.status', '=', query.statuses[0] as string);
  else if (query.statuses.length > 1) filtered = filtered.where('runs.status', 'in', query.statuses);
  if (query.agentId !== undefined) filtered = filtered.where('runs.agent_id', '=', query.agentId);
  if (query.sessionId !== undefined) filtered = filtered.where('runs.session_id', '=', query.sessionId);
  if (query.agentScope !== undefined) filtered = filtered.where('runs.agent_id', 'in', query.agentScope);
  for (const { key, value } of rest) {
    filtered = filtered.where(({ exists, selectFrom, lit }) =>
      exists(
        selectFrom('run_metadata')
          .select(lit(1).as('one'))
          .whereRef('run_metadata.run_id', '=', 'runs.id')
          .where('run_metadata.key', '=', key)
          .where('run_metadata.value', '=', value),
      ),
    );
  }
  // The page key: the first metadata filter's copy of it (what its index is ordered by), or the run's.
  const [createdAt, id] = first
    ? [sql.ref('first_filter.created_at'), sql.ref('first_filter.run_id')]
    : [sql.ref('runs.created_at'), sql.ref('runs.id')];
  const { after } = query;
  if (after)
    filtered = filtered.where(sql<boolean>`(${createdAt}, ${id}) < (${after.createdAt}, ${after.id})`);
  return filtered
    .orderBy(createdAt, 'desc')
    .orderBy(id, 'desc')
    .select([
      'runs.id',
      'runs.status',
      'runs.agent_id',
      'runs.session_id',
      'runs.metadata',
      'runs.tokens',
      'runs.turns',
      'runs.model',
      'runs.created_at',
      'runs.ended_at',
    ])
    .limit(query.limit);
}
