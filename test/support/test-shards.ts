import { globSync, readFileSync } from 'node:fs';
import { basename, dirname, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * A suite run as a few processes, each importing its share of the test files and running them one
 * after another: a test process costs about half a second of CPU to start and import the service,
 * which, paid once per file, was most of the suite's CPU time.
 */
export interface ShardSet {
  /** The folder (from the repository's root) of its modules, `shard-00.ts` … one per shard. */
  readonly folder: string;
  readonly count: number;
  /** Globs (from the repository's root) of the test files it deals to its shards. */
  readonly patterns: readonly string[];
  /**
   * The seconds each of its files took in a recorded run (`test-durations-reporter.ts`). The shards
   * are dealt by it so that they take about as long as each other: the longest shard sets the suite's
   * wall time. A file the table does not know counts as a typical one; a stale table only unbalances
   * the shards.
   */
  readonly durations: string;
}

/** `npm test`: every test file on the embedded deployment. */
export const SUITE_SHARDS: ShardSet = {
  folder: 'test/shards',
  count: 12,
  patterns: ['test/**/*.test.ts'],
  durations: 'test/support/test-durations.json',
};

/**
 * `npm run test:scale`: the HTTP-level and storage suites on PostgreSQL and Redis (scale-out), beside
 * `test/scale/**\/*.scale-test.ts`, which start clusters of their own and run one process each. A new
 * test file outside these folders joins the scale-out run only if it is added here.
 */
export const SCALE_SHARDS: ShardSet = {
  folder: 'test/scale-shards',
  count: 10,
  patterns: [
    'test/{a2a,ag-ui,admin,client,console,http,mcp,oauth,openapi,runs,schedules,sessions,storage,tools,webhooks}/**/*.test.ts',
    'test/engine/run-event-follower.test.ts',
    'test/engine/run-dispatcher-wake.test.ts',
  ],
  durations: 'test/support/test-durations-scale.json',
};

const SHARD_SETS = [SUITE_SHARDS, SCALE_SHARDS];

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const dealt = new Map<ShardSet, string[][]>();

/** The test files of shard `index` of the set: each of its files in one shard, sorted. */
export function filesOfShard(set: ShardSet, index: number): string[] {
  let shards = dealt.get(set);
  if (shards === undefined) {
    shards = dealByDuration(set, filesOfSet(set));
    dealt.set(set, shards);
  }
  return shards[index] ?? [];
}

/** Every file the set's patterns match, sorted. */
export function filesOfSet(set: ShardSet): string[] {
  return [...new Set(globSync([...set.patterns], { cwd: ROOT }))].sort();
}

/** Longest first, each file to the shard with the least time so far (ties: the lower index). */
function dealByDuration(set: ShardSet, files: readonly string[]): string[][] {
  const durations = JSON.parse(readFileSync(`${ROOT}${set.durations}`, 'utf8')) as Record<string, number>;
  const known = files.flatMap((file) => durations[file] ?? []).sort((a, b) => a - b);
  const typical = known[Math.floor(known.length / 2)] ?? 1;
  const shards = Array.from({ length: set.count }, () => ({ files: [] as string[], seconds: 0 }));
  const byDuration = files
    .map((file) => ({ file, seconds: durations[file] ?? typical }))
    .sort((a, b) => b.seconds - a.seconds || a.file.localeCompare(b.file));
  for (const { file, seconds } of byDuration) {
    const lightest = shards.reduce((least, shard) => (shard.seconds < least.seconds ? shard : least));
    lightest.files.push(file);
    lightest.seconds += seconds;
  }
  return shards.map((shard) => shard.files.sort());
}

/**
 * Imports the test files of the shard named by the calling module (`test/shards/shard-07.ts`), of
 * the set whose folder holds it.
 */
export async function runShard(shardModuleUrl: string): Promise<void> {
  const path = fileURLToPath(shardModuleUrl);
  const set = SHARD_SETS.find((candidate) => candidate.folder === relative(ROOT, dirname(path)));
  const index = Number(/^shard-(\d+)\.ts$/.exec(basename(path))?.[1]);
  if (set === undefined || !Number.isInteger(index) || index < 0 || index >= set.count) {
    throw new Error(
      `${shardModuleUrl} is not a shard module (test/shards/shard-NN.ts, test/scale-shards/shard-NN.ts)`,
    );
  }
  for (const file of filesOfShard(set, index)) await import(pathToFileURL(`${ROOT}${file}`).href);
}
