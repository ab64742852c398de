import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  onlyError,
  assertTruncatedOnceUponATime,
  startRunFixture,
  types,
  type RunFixture,
} from '../support/run-fixture.ts';

describe('provider failures: classification, retries, truncation', () => {
  let fixture: RunFixture;
  before(async () => {
    fixture = await startRunFixture('anthropic-messages');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  const snapshotOf = (runId: string) =>
    fixture.server.request('GET', `${fixture.ws}/agent-runs/${runId}`, { headers: fixture.headers });

  it('a 429 is retried, honoring Retry-After, and the run then succeeds', async () => {
    fixture.fake.reset();
    fixture.fake.enqueue(
      { type: 'http-error', status: 429, headers: { 'retry-after-ms': '120' } },
      { text: ['recovered'] },
    );
    // The run ends within the wait cap (runToEnd fails otherwise), on the hinted delay.
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });
    assert.equal(types(frames).at(-1), 'result');
    assert.equal(frames.at(-1)?.data.data.text, 'recovered');
    assert.equal(frames.at(-1)?.data.data.turns, 1);
    assert.equal(fixture.fake.requests.length, 2);
    const gap = (fixture.fake.requests[1]?.receivedAt ?? 0) - (fixture.fake.requests[0]?.receivedAt ?? 0);
    assert.ok(gap >= 110, `the retry waited for Retry-After (${gap} ms)`);
  });

  it('overloaded (529) retried until retries run out ends in an error event with errorClass overloaded', async () => {
    fixture.fake.reset();
    fixture.fake.enqueue({ type: 'http-error', status: 529 });
    const { runId, frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });
    const error = onlyError(frames, {
      errorClass: 'overloaded',
      code: 'overloaded',
      retryable: true,
      apiStatus: 529,
      apiCode: 'overloaded_error',
      turns: 1, // a failing invocation counts as a turn
    });
    assert.equal(fixture.fake.requests.length, 4, 'first attempt plus three retries');
    const snapshot = await snapshotOf(runId);
    assert.equal(snapshot.body.status, 'failed');
    assert.equal(snapshot.body.error, error.error);
  });

  it('a server error (500) is classified server and retried', async () => {
    fixture.fake.reset();
    fixture.fake.enqueue({ type: 'http-error', status: 500 }, { text: ['ok'] });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });
    assert.equal(types(frames).at(-1), 'result');
    assert.equal(fixture.fake.requests.length, 2);
  });

  it('an auth failure (401) is not retried: errorClass auth', async () => {
    fixture.fake.reset();
    fixture.fake.enqueue({ type: 'http-error', status: 401 });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });
    assert.equal(frames.at(-1)?.data.data.errorClass, 'auth');
    assert.equal(frames.at(-1)?.data.data.retryable, false);
    assert.equal(fixture.fake.requests.length, 1);
  });

  it("an error's finishReason mirrors the last assistant_message: tool_use after a tool round, null without any", async () => {
    fixture.fake.reset();
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_1', name: 'lookup', input: { q: 'a' } }] },
      { type: 'http-error', status: 401 },
    );
    const run = await fixture.startRun({
      systemPrompt: 's',
      prompt: 'p',
      tools: [{ kind: 'local', name: 'lookup' }],
    });
    const call = await run.waitForType('local_tool_call');
    const posted = await fixture.server.request(
      'POST',
      `${fixture.ws}/agent-runs/${run.runId}/tool-results`,
      {
        headers: fixture.headers,
        body: { toolUseId: call.data.data.toolUseId, result: 'found' },
      },
    );
    assert.equal(posted.status, 200);
    const frames = await run.ended;
    const messages = frames.filter((frame) => frame.data.type === 'assistant_message');
    assert.equal(messages.at(-1)?.data.data.finishReason, 'tool_use');
    assert.equal(frames.at(-1)?.data.type, 'error');
    assert.equal(frames.at(-1)?.data.data.errorClass, 'auth');
    assert.equal(frames.at(-1)?.data.data.finishReason, 'tool_use');

    fixture.fake.enqueue({ type: 'http-error', status: 401 });
    const first = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });
    assert.ok(!types(first.frames).includes('assistant_message'));
    assert.equal(first.frames.at(-1)?.data.data.finishReason, null);
  });

  it('a context-window rejection is errorClass context_window', async () => {
    fixture.fake.reset();
    fixture.fake.enqueue({
      type: 'http-error',
      status: 400,
      message: 'prompt is too long: 250000 tokens > 200000 maximum',
    });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });
    assert.equal(frames.at(-1)?.data.data.errorClass, 'context_window');
    assert.equal(frames.at(-1)?.data.data.apiStatus, 400);
  });

  it('other bad requests are errorClass invalid_request with the provider message', async () => {
    fixture.fake.reset();
    fixture.fake.enqueue({ type: 'http-error', status: 400, message: 'temperature: out of range' });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });
    assert.equal(frames.at(-1)?.data.data.errorClass, 'invalid_request');
    assert.match(frames.at(-1)?.data.data.error, /temperature/);
  });

  it('truncation: the last assistant_message has finishReason max_tokens, then error truncation with partialText', async () => {
    fixture.fake.reset();
    fixture.fake.enqueue({ text: ['Once upon ', 'a time'], finishReason: 'max_tokens' });
    const { runId, frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'story' });
    assertTruncatedOnceUponATime(frames);
    const snapshot = await snapshotOf(runId);
    assert.equal(snapshot.body.status, 'failed');
    assert.equal(snapshot.body.finalText, 'Once upon a time');
    assert.equal(snapshot.body.error, frames[3]?.data.data.error);
    assert.deepEqual(snapshot.body.failureReason, { errorClass: 'truncation', finishReason: 'max_tokens' });
  });

  it('a stream dropped after output is not retried (it would repeat text): error server with partialText', async () => {
    fixture.fake.reset();
    fixture.fake.enqueue({ text: ['partial ', 'reply ', 'never ', 'finished'], dropAfterChunks: 5 });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });
    const terminal = frames.at(-1)?.data;
    assert.equal(terminal?.type, 'error');
    assert.equal(terminal?.data.errorClass, 'server');
    assert.ok((terminal?.data.partialText as string).startsWith('partial'), terminal?.data.partialText);
    assert.equal(fixture.fake.requests.length, 1);
    const message = frames.find((frame) => frame.data.type === 'assistant_message');
    assert.equal(
      message?.data.data.text,
      terminal?.data.partialText,
      'the last assistant_message carries the partial text',
    );
  });

  it('a refusal is reported with the canonical finishReason refusal', async () => {
    fixture.fake.reset();
    fixture.fake.enqueue({ text: ['I cannot help with that.'], finishReason: 'refusal' });
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p' });
    const message = frames.find((frame) => frame.data.type === 'assistant_message');
    assert.equal(message?.data.data.finishReason, 'refusal');
    assert.equal(types(frames).at(-1), 'result');
  });
});
