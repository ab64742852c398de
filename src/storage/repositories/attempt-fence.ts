import type { Kysely } from 'kysely';
import { isPostgres } from '../dialect.ts';
import type { Database } from '../schema.ts';

/**
 * Runs among `writes` whose attempt is no longer the run's: a worker that lost its lease must not
 * write. Writes without an attempt are not checked. On PostgreSQL the rows stay locked until commit,
 * so a takeover waits for an in-flight write instead of racing it.
 */
export async function fencedRuns(
  trx: Kysely<Database>,
  writes: readonly { runId: string; attempt?: number | undefined }[],
): Promise<Set<string>> {
  const fenced = new Set<string>();
  const checked = writes.filter((write) => write.attempt !== undefined);
  if (checked.length === 0) return fenced;
  let query = trx
    .selectFrom('runs')
    .select(['id', 'attempt'])
    .where(
      'id',
      'in',
      checked.map((write) => write.runId),
    );
  if (isPostgres(trx)) query = query.forUpdate();
  const attempts = new Map((await query.execute()).map((row) => [row.id, Number(row.attempt)]));
  for (const write of checked) if (attempts.get(write.runId) !== write.attempt) fenced.add(write.runId);
  return fenced;
}
