import { globSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * `npm test` runs the suite as this many processes (test/shards/), each importing its share of the
 * test files and running them one after another: a test process costs about half a second of CPU
 * to start and import the service, which, paid once per file, was most of the suite's CPU time.
 */
export const SHARD_COUNT = 12;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Seconds each test file took in a recorded run (`test-durations-reporter.ts`). The shards are dealt
 * by it so that they take about as long as each other: the longest shard sets the suite's wall time.
 * A file the table does not know counts as a typical one; a stale table only unbalances the shards.
 */
const DURATIONS = JSON.parse(readFileSync(`${ROOT}test/support/test-durations.json`, 'utf8')) as Record<
  string,
  number
>;

let dealt: string[][] | undefined;

/** The test files of shard `index`: every `test/**\/*.test.ts`, each in one shard, sorted. */
export function filesOfShard(index: number): string[] {
  dealt ??= dealByDuration(globSync('test/**/*.test.ts', { cwd: ROOT }).sort());
  return dealt[index] ?? [];
}

/** Longest first, each file to the shard with the least time so far (ties: the lower index). */
function dealByDuration(files: readonly string[]): string[][] {
  const known = files.flatMap((file) => DURATIONS[file] ?? []).sort((a, b) => a - b);
  const typical = known[Math.floor(known.length / 2)] ?? 1;
  const shards = Array.from({ length: SHARD_COUNT }, () => ({ files: [] as string[], seconds: 0 }));
  const byDuration = files
    .map((file) => ({ file, seconds: DURATIONS[file] ?? typical }))
    .sort((a, b) => b.seconds - a.seconds || a.file.localeCompare(b.file));
  for (const { file, seconds } of byDuration) {
    const lightest = shards.reduce((least, shard) => (shard.seconds < least.seconds ? shard : least));
    lightest.files.push(file);
    lightest.seconds += seconds;
  }
  return shards.map((shard) => shard.files.sort());
}

/** Imports the test files of the shard named by the calling module (`test/shards/shard-07.ts`). */
export async function runShard(shardModuleUrl: string): Promise<void> {
  const index = Number(/^shard-(\d+)\.ts$/.exec(basename(fileURLToPath(shardModuleUrl)))?.[1]);
  if (!Number.isInteger(index) || index < 0 || index >= SHARD_COUNT) {
    throw new Error(`${shardModuleUrl} is not a shard module (shard-00.ts … shard-${SHARD_COUNT - 1}.ts)`);
  }
  for (const file of filesOfShard(index)) await import(pathToFileURL(`${ROOT}${file}`).href);
}
