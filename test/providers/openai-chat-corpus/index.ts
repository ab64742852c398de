import type { CorpusCase } from './corpus-case.ts';
import { FINISH_AND_USAGE_CASES } from './finish-and-usage-streams.ts';
import { HTTP_ERROR_CASES } from './http-errors.ts';
import { REASONING_CASES } from './reasoning-streams.ts';
import { REQUEST_SHAPE_CASES } from './request-shapes.ts';
import { STREAM_FAULT_CASES } from './stream-faults.ts';
import { TEXT_CASES } from './text-streams.ts';
import { TOOL_CALL_QUIRK_CASES } from './tool-call-quirks.ts';
import { TOOL_CALL_CASES } from './tool-call-streams.ts';

export type { CorpusCase } from './corpus-case.ts';

/** Every recorded OpenAI Chat Completions exchange of the corpus. */
export const CORPUS: readonly CorpusCase[] = [
  ...TEXT_CASES,
  ...TOOL_CALL_CASES,
  ...TOOL_CALL_QUIRK_CASES,
  ...REASONING_CASES,
  ...FINISH_AND_USAGE_CASES,
  ...STREAM_FAULT_CASES,
  ...HTTP_ERROR_CASES,
  ...REQUEST_SHAPE_CASES,
];

const names = new Set<string>();
for (const { name } of CORPUS) {
  if (names.has(name)) throw new Error(`corpus: two cases named ${JSON.stringify(name)}`);
  names.add(name);
}

/** The case whose name starts with `prefix` (exactly one must). */
export function corpusCase(prefix: string): CorpusCase {
  const found = CORPUS.filter((entry) => entry.name.startsWith(prefix));
  if (found.length !== 1)
    throw new Error(`corpus: ${found.length} cases start with ${JSON.stringify(prefix)}`);
  return found[0] as CorpusCase;
}
