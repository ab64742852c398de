import { relative } from 'node:path';
import type { TestEvent } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A `node --test` reporter that writes, as JSON, the seconds each test file's tests took (the sum of
 * its top-level tests): the table `test-shards.ts` deals the files of `npm test` by
 * (`test/support/test-durations.json`; see CONTRIBUTING.md for the command).
 */
export default async function* testDurations(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const seconds = new Map<string, number>();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { nesting, file, details } = event.data;
    if (nesting !== 0 || file === undefined) continue;
    const path = relative(ROOT, file.startsWith('file:') ? fileURLToPath(file) : file);
    seconds.set(path, (seconds.get(path) ?? 0) + details.duration_ms / 1000);
  }
  const table = Object.fromEntries(
    [...seconds].sort(([a], [b]) => a.localeCompare(b)).map(([path, s]) => [path, Math.round(s * 10) / 10]),
  );
  yield `${JSON.stringify(table, null, 2)}\n`;
}
