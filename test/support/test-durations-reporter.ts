import { relative } from 'node:path';
import type { TestEvent } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

type FailEvent = Extract<TestEvent, { type: 'test:fail' }>;

/**
 * A `node --test` reporter that writes, as JSON, the seconds each test file's tests took (the sum of
 * its top-level tests): the tables `test-shards.ts` deals the files of its shards by
 * (`test/support/test-durations.json`, `test-durations-scale.json`; see CONTRIBUTING.md for the
 * commands). Every failing test is printed on stderr as it happens (file, line, name, error), since
 * the JSON destination shows none of them and a failed run writes no table.
 */
export default async function* testDurations(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const seconds = new Map<string, number>();
  let failures = 0;
  for await (const event of source) {
    if (event.type === 'test:fail' && !isOnlySubtestsFailing(event)) {
      failures += 1;
      process.stderr.write(describeFailure(event));
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { nesting, file, details } = event.data;
    if (nesting !== 0 || file === undefined) continue;
    const path = relativePath(file);
    seconds.set(path, (seconds.get(path) ?? 0) + details.duration_ms / 1000);
  }
  if (failures > 0) process.stderr.write(`\n${failures} failing test(s), listed above\n`);
  const table = Object.fromEntries(
    [...seconds].sort(([a], [b]) => a.localeCompare(b)).map(([path, s]) => [path, Math.round(s * 10) / 10]),
  );
  yield `${JSON.stringify(table, null, 2)}\n`;
}

function relativePath(file: string): string {
  return relative(ROOT, file.startsWith('file:') ? fileURLToPath(file) : file);
}

/** A suite or test that failed only because a subtest did: the subtest is printed instead. */
function isOnlySubtestsFailing(event: FailEvent): boolean {
  const error = event.data.details.error as Error & { failureType?: string };
  return error.failureType === 'subtestsFailed';
}

function describeFailure(event: FailEvent): string {
  const { name, file, line, details } = event.data;
  const where =
    file === undefined ? '(no file)' : `${relativePath(file)}${line === undefined ? '' : `:${line}`}`;
  const error = details.error as Error & { cause?: unknown };
  const shown = error.cause ?? error;
  return `\n✖ FAIL ${where} ${JSON.stringify(name)}\n${indent(inspect(shown, { depth: 4 }))}\n`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
