import type { Kysely } from 'kysely';
import { isPostgres } from '../dialect.ts';
import type { Database } from '../schema.ts';

/**
 * Runs among `writes` that must not be written: those whose attempt is no longer the run's (a worker
 * that lost its lease), and those whose row is gone. Writes without an attempt are checked only with
 * `everyRun`, for their row alone. On PostgreSQL the rows stay locked until commit, so a takeover
 * waits for an in-flight write instead of racing it, and so does a deletion of the run.
 */
export async function fencedRuns(
  trx: Kysely<Database>,
  writes: readonly { runId: string; attempt?: number | undefined }[],
  { everyRun = false }: { everyRun?: boolean } = {},
): Promise<Set<string>> {
  const fenced = new Set<string>();
  const checked = everyRun ? writes : writes.filter((write) => write.attempt !== undefined);
  if (checked.length === 0) return fenced;
  let query = trx
    .selectFrom('runs')
    .select(['id', 'attempt'])
    .where(
      'id',
      'in',
      checked.map((write) => write.runId),
    );
  // Locked in id order, as a workspace's deletion locks its runs, so that the two cannot deadlock.
  if (isPostgres(trx)) query = query.orderBy('id').forUpdate();
  const attempts = new Map((await query.execute()).map((row) => [row.id, Number(row.attempt)]));
  for (const write of checked) {
    const attempt = attempts.get(write.runId);
    if (attempt === undefined || (write.attempt !== undefined && attempt !== write.attempt)) {
      fenced.add(write.runId);
    }
  }
  return fenced;
}
