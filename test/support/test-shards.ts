import { globSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * `npm test` runs the suite as this many processes (test/shards/), each importing its share of the
 * test files and running them one after another: a test process costs about half a second of CPU
 * to start and import the service, which, paid once per file, was most of the suite's CPU time.
 */
export const SHARD_COUNT = 12;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The test files of shard `index`: every `test/**\/*.test.ts`, sorted, dealt round-robin. */
export function filesOfShard(index: number): string[] {
  return globSync('test/**/*.test.ts', { cwd: ROOT })
    .sort()
    .filter((_, position) => position % SHARD_COUNT === index);
}

/** Imports the test files of the shard named by the calling module (`test/shards/shard-07.ts`). */
export async function runShard(shardModuleUrl: string): Promise<void> {
  const index = Number(/^shard-(\d+)\.ts$/.exec(basename(fileURLToPath(shardModuleUrl)))?.[1]);
  if (!Number.isInteger(index) || index < 0 || index >= SHARD_COUNT) {
    throw new Error(`${shardModuleUrl} is not a shard module (shard-00.ts … shard-${SHARD_COUNT - 1}.ts)`);
  }
  for (const file of filesOfShard(index)) await import(pathToFileURL(`${ROOT}${file}`).href);
}
