import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aiSdkModelPort } from '../../src/providers/ai-sdk-model-turn.ts';
import { startFakeOpenAIChat } from '../fakes/fake-openai-chat.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { CORPUS, corpusCase } from './openai-chat-corpus/index.ts';
import {
  decodingEachRead,
  droppingLastDelta,
  emptyInputForBadArguments,
  inflatingUsage,
  losingPartialText,
  mergingTextDeltas,
  neverRetryable,
  renamingToolCallsOnly,
  withAnotherKey,
} from './openai-chat-corpus/faulty-ports.ts';
import {
  assertPortsAgree,
  assertSameCapture,
  comparableCapture,
  type NamedPort,
} from './openai-chat-corpus/port-capture.ts';
import { offsetAfter, offsetInside } from './openai-chat-corpus/corpus-case.ts';

/**
 * The differential comparison itself: deterministic on every corpus case (the reference port agrees
 * with itself, made-up tool-call ids included), and it tells apart ports that differ in one small way.
 */
const reference: NamedPort = { name: 'aiSdkModelPort', port: aiSdkModelPort };

describe('the OpenAI chat differential comparison', () => {
  let fake: FakeProviderServer;
  before(async () => {
    fake = await startFakeOpenAIChat();
  });
  after(() => fake.close());

  it('the reference port agrees with itself on every corpus case (nothing compared varies between calls)', async () => {
    for (const entry of CORPUS) await assertPortsAgree(reference, reference, fake, entry);
  });

  const differences: Array<[NamedPort, string, string]> = [
    [droppingLastDelta(aiSdkModelPort), 'text: OpenAI stream', 'the text and thinking deltas'],
    [
      droppingLastDelta(aiSdkModelPort),
      'dropped: the connection is cut after some text',
      'the text and thinking deltas',
    ],
    [
      mergingTextDeltas(aiSdkModelPort),
      'reasoning: reasoning_content then content',
      'the text and thinking deltas',
    ],
    [inflatingUsage(aiSdkModelPort), 'usage: cached prompt tokens', 'the completed turn or the error'],
    [withAnotherKey(aiSdkModelPort), 'text: OpenAI stream', 'the request on the wire'],
    [renamingToolCallsOnly(aiSdkModelPort), 'tools: calls without an id', 'the completed turn or the error'],
    [renamingToolCallsOnly(aiSdkModelPort), 'tools: one call', 'the completed turn or the error'],
    [neverRetryable(aiSdkModelPort), 'http: 429 rate_limit_exceeded', 'the completed turn or the error'],
    [
      losingPartialText(aiSdkModelPort),
      'error: an error object mid-stream',
      'the completed turn or the error',
    ],
    [
      emptyInputForBadArguments(aiSdkModelPort),
      'tools: arguments that are not valid JSON',
      'the completed turn or the error',
    ],
  ];
  for (const [faulty, prefix, what] of differences) {
    it(`tells apart ${faulty.name} on "${prefix}…" (${what})`, async () => {
      await assert.rejects(
        assertPortsAgree(reference, faulty, fake, corpusCase(prefix)),
        (error: unknown) => error instanceof assert.AssertionError && error.message.includes(what),
      );
    });
  }

  it('the split property tells apart a parser that decodes and splits each read on its own (writes reach the client as separate reads)', async () => {
    const entry = corpusCase('text: multi-byte UTF-8');
    const body = String(entry.reply.body);
    const whole = await comparableCapture(decodingEachRead, fake, entry, {
      reply: { ...entry.reply, splitAt: [] },
    });
    assert.equal(whole.outputs.map(([, text]) => text).join(''), 'Grüße aus Köln — 東京は晴れ 🌤️ ¡Olé! 👍🏽');
    for (const splitAt of [[offsetInside(body, 'ü')], [offsetAfter(body, '"content":"Grü')]]) {
      // Two writes reach the client as two reads only if it reads in between: on a busy one-core
      // machine 5 ms apart is not always enough, so the interval grows until they do.
      let toldApart = false;
      for (const writeIntervalMs of [5, 50, 250, 1000]) {
        const split = await comparableCapture(decodingEachRead, fake, entry, {
          reply: { ...entry.reply, splitAt, writeIntervalMs },
        });
        try {
          assertSameCapture(split, whole, `split at ${splitAt[0]}`);
        } catch (error) {
          if (!(error instanceof assert.AssertionError)) throw error;
          toldApart = true;
          break;
        }
      }
      assert.ok(toldApart, `split at ${splitAt[0]}: the comparison tells the parsers apart`);
    }
  });
});
