import { after, before, describe, it } from 'node:test';
import { startFakeOpenAIChat } from '../fakes/fake-openai-chat.ts';
import type { FakeProviderServer } from '../fakes/scripted-reply.ts';
import { CORPUS } from './openai-chat-corpus/index.ts';
import assert from 'node:assert/strict';
import { corpusCase } from './openai-chat-corpus/index.ts';
import { assertPortsAgree, captureAborted, type AbortPoint } from './openai-chat-corpus/port-capture.ts';
import { PORT_A, PORT_B } from './openai-chat-corpus/ports-under-comparison.ts';

/**
 * The rule: for an `openai-chat` model, port B behaves exactly as port A (see
 * ports-under-comparison.ts) on every recorded exchange of the corpus: the same request on the wire
 * (method, path, content-type, authorization, content-encoding, the JSON body), the same text and
 * thinking deltas in the same order, and the same outcome (the completed turn as JSON, or the error's
 * class and, for a ModelTurnError, its failure, partial text and whether output was emitted).
 * Tool-call ids the client makes up are compared by use, not value.
 */
describe(`OpenAI chat: ${PORT_B.name} against ${PORT_A.name} on the recorded corpus`, () => {
  let fake: FakeProviderServer;
  before(async () => {
    fake = await startFakeOpenAIChat();
  });
  after(() => fake.close());

  for (const corpusCase of CORPUS) {
    it(`same request, deltas and outcome: ${corpusCase.name}`, async () => {
      await assertPortsAgree(PORT_A, PORT_B, fake, corpusCase);
    });
  }
});

/**
 * The rule: an aborted call rejects with the signal's reason itself, after the same deltas, and the
 * provider request it made is closed (none is made when the signal was aborted before the call).
 */
describe(`OpenAI chat: ${PORT_B.name} against ${PORT_A.name} when the call is aborted`, () => {
  let fake: FakeProviderServer;
  before(async () => {
    fake = await startFakeOpenAIChat();
  });
  after(() => fake.close());

  /** Where to abort, the case, and (at the first delta) the text of the event that carries it. */
  const points: Array<[AbortPoint, string, string?]> = [
    ['before-call', 'text: OpenAI stream'],
    ['request-received', 'text: OpenAI stream'],
    ['first-delta', 'text: OpenAI stream', '"content":"Hello"'],
    ['first-delta', 'reasoning: reasoning_content then content', '"reasoning_content":"Try'],
    ['first-delta', 'tools: text then two parallel calls', '"content":"Checking'],
  ];
  for (const [point, prefix, firstDelta] of points) {
    it(`aborted at ${point}: the same rejection, deltas and closed request (${prefix}…)`, async () => {
      const entry = corpusCase(prefix);
      const a = await captureAborted(PORT_A, fake, entry, point, firstDelta);
      const b = await captureAborted(PORT_B, fake, entry, point, firstDelta);
      assert.equal(a.rejectedWithTheReason, true, `${PORT_A.name} rejects with the abort reason`);
      assert.deepEqual(b, a, `${PORT_B.name} vs ${PORT_A.name} aborted at ${point} on "${entry.name}"`);
    });
  }
});
