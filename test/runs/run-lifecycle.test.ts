import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { readAll } from '../support/sse-client.ts';
import { startRunFixture, textOf, types, type RunFixture } from '../support/run-fixture.ts';
import { deferred } from '../support/waits.ts';

describe('one-shot runs: creation, events, the terminal result and the snapshot', () => {
  let fixture: RunFixture;
  before(async () => {
    fixture = await startRunFixture('openai-chat');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  it('POST answers 202 { runId, streamUrl } where streamUrl is the path of the stream route', async () => {
    const created = await fixture.createRun({ systemPrompt: 'Be brief.', prompt: 'hello' });
    assert.equal(created.status, 202);
    assert.match(created.body.runId, /^run_/);
    assert.equal(created.body.streamUrl, `${fixture.ws}/agent-runs/${created.body.runId}/stream`);
    await readAll(fixture.streamUrl(created.body.runId), fixture.headers);
  });

  it('streams deltas, one assistant_message and exactly one terminal result, with seq strictly increasing', async () => {
    fixture.fake.enqueue({ text: ['Hel', 'lo ', 'there'], usage: { inputTokens: 12, outputTokens: 3 } });
    const { frames } = await fixture.runToEnd({ systemPrompt: 'Be brief.', prompt: 'hello' });
    assert.deepEqual(types(frames), [
      'assistant_delta',
      'assistant_delta',
      'assistant_delta',
      'assistant_message',
      'result',
    ]);
    assert.deepEqual(
      frames.map((frame) => frame.data.seq),
      [1, 2, 3, 4, 5],
    );
    assert.equal(textOf(frames), 'Hello there');
    const message = frames[3]?.data.data;
    assert.deepEqual(message, { text: 'Hello there', turn: 0, finishReason: 'end_turn' });
    const result = frames[4]?.data.data;
    assert.equal(result?.subtype, 'success');
    assert.equal(result?.text, 'Hello there');
    assert.deepEqual(result?.tokens, {
      inputTokens: 12,
      cachedTokens: 0,
      reasoningTokens: 0,
      outputTokens: 3,
    });
    assert.equal(result?.turns, 1);
    assert.deepEqual(result?.model, {
      id: 'fakeopenai/fake-model',
      provider: 'fakeopenai',
      vendorModelId: 'fake-model',
    });
    assert.deepEqual(result?.structuredOutput, {
      schemaRequested: false,
      schemaEnforced: false,
      enforcementMechanism: 'none',
      unconstrainedFallbackOccurred: false,
    });
  });

  it('with an outputSchema, structuredOutput reports it requested and enforced by the native schema (test/runs/structured-output.test.ts has the rules)', async () => {
    fixture.fake.enqueue({ text: ['{"a":"b"}'] });
    const { frames } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'p',
      outputSchema: { name: 'answer', schema: { type: 'object', properties: { a: { type: 'string' } } } },
    });
    assert.equal(frames.at(-1)?.data.type, 'result');
    assert.deepEqual(frames.at(-1)?.data.data.structuredOutput, {
      schemaRequested: true,
      schemaEnforced: true,
      enforcementMechanism: 'native_schema',
      unconstrainedFallbackOccurred: false,
    });
  });

  it('frames carry id, event and data lines; data is { seq, type, data } with type equal to the event line', async () => {
    const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'frame me' });
    for (const frame of frames) {
      assert.equal(frame.id, String(frame.data.seq));
      assert.equal(frame.event, frame.data.type);
      assert.deepEqual(Object.keys(frame.data), ['seq', 'type', 'data']);
      assert.match(frame.raw, /^id: \d+\nevent: [a-z_]+\ndata: \{.*\}$/);
    }
  });

  it('the snapshot has status, finalText, spec, metadata and the cost triple once terminal', async () => {
    fixture.fake.enqueue({ text: ['done'], usage: { inputTokens: 5, outputTokens: 1, cachedTokens: 2 } });
    const { runId } = await fixture.runToEnd({
      systemPrompt: 's',
      prompt: 'p',
      metadata: { ticket: 'T-1' },
      name: 'demo',
    });
    const snapshot = await fixture.server.request('GET', `${fixture.ws}/agent-runs/${runId}`, {
      headers: fixture.headers,
    });
    assert.equal(snapshot.status, 200);
    assert.equal(snapshot.body.runId, runId);
    assert.equal(snapshot.body.status, 'succeeded');
    assert.equal(snapshot.body.finalText, 'done');
    assert.equal(snapshot.body.error, null);
    assert.deepEqual(snapshot.body.metadata, { ticket: 'T-1' });
    assert.equal(snapshot.body.spec.name, 'demo');
    assert.equal(snapshot.body.spec.prompt, 'p');
    assert.deepEqual(snapshot.body.tokens, {
      inputTokens: 5,
      cachedTokens: 2,
      reasoningTokens: 0,
      outputTokens: 1,
    });
    assert.equal(snapshot.body.turns, 1);
    assert.equal(snapshot.body.model.vendorModelId, 'fake-model');
  });

  it('the cost triple is null on the snapshot until the terminal event is written', async () => {
    // The model answers only once the snapshot was read.
    const snapshotRead = deferred();
    fixture.fake.enqueue({ text: ['slow'], holdUntil: snapshotRead.promise });
    const created = await fixture.createRun({ systemPrompt: 's', prompt: 'p' });
    const snapshot = await fixture.server.request('GET', `${fixture.ws}/agent-runs/${created.body.runId}`, {
      headers: fixture.headers,
    });
    snapshotRead.resolve();
    assert.equal(snapshot.body.tokens, null);
    assert.equal(snapshot.body.turns, null);
    assert.equal(snapshot.body.model, null);
    assert.ok(['queued', 'running'].includes(snapshot.body.status));
    await readAll(fixture.streamUrl(created.body.runId), fixture.headers);
  });

  it('an unknown run is 404 not_found on every run route', async () => {
    for (const path of ['/agent-runs/run_nope', '/agent-runs/run_nope/stream']) {
      const response = await fixture.server.request('GET', `${fixture.ws}${path}`, {
        headers: fixture.headers,
      });
      assert.equal(response.status, 404, path);
      assert.equal(response.body.error, 'not_found');
    }
    const cancel = await fixture.server.request('POST', `${fixture.ws}/agent-runs/run_nope/cancel`, {
      headers: fixture.headers,
    });
    assert.equal(cancel.status, 404);
  });
});
