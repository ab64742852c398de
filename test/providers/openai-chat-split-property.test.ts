import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startFakeOpenAIChat } from '../fakes/fake-openai-chat.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { bodyBytes, type CorpusCase } from './openai-chat-corpus/corpus-case.ts';
import { corpusCase } from './openai-chat-corpus/index.ts';
import {
  assertSameCapture,
  comparableCapture,
  type NamedPort,
  type PortCapture,
} from './openai-chat-corpus/port-capture.ts';
import { PORT_A, PORT_B } from './openai-chat-corpus/ports-under-comparison.ts';

/**
 * The rule: where the provider's writes split a body (inside a line, a JSON value, a UTF-8 character
 * or a CRLF) changes nothing: the same body in any number of writes at any byte offsets gives the
 * same deltas and the same outcome as the body in one write. Checked for port B, and for port A as a
 * check of the property itself.
 */
const CASES = [
  'text: multi-byte UTF-8',
  'text: JSON escapes',
  'text: keep-alive and ping comments',
  'text: bare CR line ends',
  'tools: two calls with interleaved argument deltas',
  'reasoning: reasoning_content then content',
  'error: a malformed JSON line',
  'error: an error object mid-stream',
  'dropped: the connection is cut after some text',
].map(corpusCase);

/** Random splits per case and port: each is one call over loopback. */
const RUNS = 20;

/** Offsets inside every CRLF of the body, and one write per byte: the splits most likely to break a parser. */
function pathologicalSplits(entry: CorpusCase): number[][] {
  const bytes = bodyBytes(entry.reply);
  const insideCrlf: number[] = [];
  for (let index = 0; index + 1 < bytes.length; index++)
    if (bytes[index] === 0x0d && bytes[index + 1] === 0x0a) insideCrlf.push(index + 1);
  const everyByte = Array.from({ length: bytes.length - 1 }, (_, index) => index + 1);
  return insideCrlf.length > 0 ? [insideCrlf, everyByte] : [everyByte];
}

const splitOffsets = (length: number) =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: Math.max(1, length - 1) }), { minLength: 1, maxLength: 32 })
    .map((offsets) => offsets.toSorted((a, b) => a - b));

for (const port of [PORT_B, PORT_A] satisfies NamedPort[]) {
  describe(`OpenAI chat: ${port.name} gives the same result however the body is split into writes`, () => {
    let fake: FakeProviderServer;
    before(async () => {
      fake = await startFakeOpenAIChat();
    });
    after(() => fake.close());

    for (const entry of CASES) {
      it(`any split of the body, same deltas and outcome: ${entry.name}`, async () => {
        // No pause between writes: many splits per run, and the cut comes as fast as the bytes.
        const { writeIntervalMs: _pause, ...recorded } = entry.reply;
        const whole = { ...recorded, splitAt: [] };
        const baseline: PortCapture = await comparableCapture(port, fake, entry, { reply: whole });
        const length = bodyBytes(entry.reply).length;
        const check = async (splitAt: number[]) => {
          const split = await comparableCapture(port, fake, entry, { reply: { ...recorded, splitAt } });
          assertSameCapture(
            split,
            baseline,
            `${port.name} on "${entry.name}" split at [${splitAt.join(', ')}]`,
          );
        };
        for (const splitAt of pathologicalSplits(entry)) await check(splitAt);
        await fc.assert(fc.asyncProperty(splitOffsets(length), check), { numRuns: RUNS });
      });
    }
  });
}
