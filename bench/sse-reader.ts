/**
 * Minimal SSE framing for the load generator: blocks split at blank lines are handed over unparsed,
 * so the hot path stays cheap. The splitter is the test client's, linear in the body's size (a
 * large frame is not searched again from its start at every chunk).
 */
export { SseSplitter } from '../test/support/sse-splitter.ts';

/** The `event:` line of a block, if any. */
export function eventType(block: string): string | undefined {
  let start: number;
  if (block.startsWith('event: ')) start = 7;
  else {
    const line = block.indexOf('\nevent: ');
    if (line === -1) return undefined;
    start = line + 8;
  }
  const end = block.indexOf('\n', start);
  return block.slice(start, end === -1 ? undefined : end);
}
