import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { anthropicThinkingBudget } from '../../src/providers/reasoning.ts';
import { EVENTS_THROUGH_FIRST_TEXT } from '../fakes/fake-anthropic.ts';
import { readAll } from '../support/sse-client.ts';
import { deferred } from '../support/waits.ts';
import {
  blocksOf,
  bodyOf,
  PNG_BASE64,
  startSessionFixture,
  systemText,
  terminalOf,
  toolNames,
  transcript,
  type SessionFixture,
} from './session-support.ts';

const mcpLocal = (toolName: string) => ({
  kind: 'mcp_local',
  name: 'docs',
  tools: [
    {
      name: toolName,
      description: 'Search the docs.',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    },
  ],
});

describe('session message runs: history and inheritance, as the provider receives them', () => {
  let fixture: SessionFixture;
  before(async () => {
    fixture = await startSessionFixture('anthropic-messages');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  const request = (index: number) => fixture.fake.requests[index];

  it("a second message run receives the first run's user and assistant turns before its own prompt", async () => {
    fixture.fake.enqueue({ text: ['Paris.'] }, { text: ['About 2.1 million.'] });
    const sessionId = await fixture.newSession({ systemPrompt: 'Answer briefly.' });
    const first = await fixture.sendMessage(sessionId, { prompt: 'Capital of France?' });
    assert.equal(terminalOf(first.frames)?.data.text, 'Paris.');
    assert.deepEqual(transcript(request(0)), ['user: Capital of France?']);
    await fixture.sendMessage(sessionId, { prompt: 'Its population?' });
    assert.deepEqual(transcript(request(1)), [
      'user: Capital of France?',
      'assistant: Paris.',
      'user: Its population?',
    ]);
  });

  it('a message run stores a reference to the history, not a copy: its spec does not grow with the session, and the provider still gets every earlier turn', async () => {
    fixture.fake.enqueue({ text: ['one'] }, { text: ['two'] }, { text: ['three'] });
    const sessionId = await fixture.newSession({ systemPrompt: 's' });
    const prompts = ['a', 'b', 'c'].map((letter) => `${letter} ${'x'.repeat(5000)}`);
    const runIds: string[] = [];
    for (const prompt of prompts) runIds.push((await fixture.sendMessage(sessionId, { prompt })).runId);
    const specs = await Promise.all(
      runIds.map(async (runId) => (await fixture.runSnapshot(runId)).body.spec),
    );
    assert.deepEqual(
      specs.map((spec) => spec.effective.sessionHistory),
      [0, 2, 4].map((items) => ({ sessionId, items })),
    );
    assert.ok(specs.every((spec) => spec.effective.history === undefined));
    const sizes = specs.map((spec) => JSON.stringify(spec).length);
    assert.ok(Math.max(...sizes) - Math.min(...sizes) < 100, `stored spec sizes ${sizes.join(', ')}`);
    assert.deepEqual(transcript(request(2)), [
      `user: ${prompts[0]}`,
      'assistant: one',
      `user: ${prompts[1]}`,
      'assistant: two',
      `user: ${prompts[2]}`,
    ]);
  });

  it('a run stored before the reference (the history copied into its spec) still replays that copy', async () => {
    fixture.fake.enqueue({ text: ['current'] }, { text: ['from the copy'] });
    const sessionId = await fixture.newSession({ systemPrompt: 's' });
    const { runId } = await fixture.sendMessage(sessionId, { prompt: 'now' });
    const { spec } = (await fixture.runSnapshot(runId)).body;
    const { sessionHistory: _reference, ...effective } = spec.effective;
    const { repos } = fixture.server.service.resources;
    const workspace = await repos.workspaces.findBySlug(fixture.slug);
    const legacy = await repos.runs.create({
      workspaceId: workspace!.id,
      agentId: null,
      sessionId: null,
      apiKeyId: null,
      spec: {
        ...spec,
        prompt: 'and now?',
        effective: {
          ...effective,
          history: [
            { role: 'user', content: 'stored question' },
            { role: 'assistant', content: 'stored answer' },
          ],
        },
      },
      metadata: {},
    });
    fixture.trackRun(legacy.id);
    await fixture.server.service.dispatcher.admit(workspace!.id);
    const frames = await readAll(fixture.streamUrl(legacy.id), fixture.headers);
    assert.equal(terminalOf(frames)?.data.text, 'from the copy');
    assert.deepEqual(transcript(request(1)), [
      'user: stored question',
      'assistant: stored answer',
      'user: and now?',
    ]);
  });

  it('session defaults apply to message runs: systemPrompt, reasoningLevel (thinking budget) and metadata', async () => {
    const sessionId = await fixture.newSession({
      systemPrompt: 'You are the session prompt.',
      reasoningLevel: 'low',
      metadata: { customer: 'c1', channel: 'web' },
    });
    const { runId } = await fixture.sendMessage(sessionId, { prompt: 'hello' });
    assert.match(systemText(request(0)), /You are the session prompt\./);
    assert.deepEqual(bodyOf(request(0)).thinking, {
      type: 'enabled',
      budget_tokens: anthropicThinkingBudget(30),
    });
    const snapshot = await fixture.runSnapshot(runId);
    assert.equal(snapshot.body.sessionId, sessionId);
    assert.deepEqual(snapshot.body.metadata, { customer: 'c1', channel: 'web' });
  });

  it('a per-message override applies to that run only; the next run uses the session default again', async () => {
    const sessionId = await fixture.newSession({ systemPrompt: 's', reasoningLevel: 'low' });
    await fixture.sendMessage(sessionId, { prompt: 'think hard', reasoningLevel: 'high' });
    await fixture.sendMessage(sessionId, { prompt: 'think lightly' });
    await fixture.sendMessage(sessionId, { prompt: 'no thinking', reasoningLevel: 0 });
    assert.deepEqual(bodyOf(request(0)).thinking, {
      type: 'enabled',
      budget_tokens: anthropicThinkingBudget(80),
    });
    assert.deepEqual(bodyOf(request(1)).thinking, {
      type: 'enabled',
      budget_tokens: anthropicThinkingBudget(30),
    });
    assert.deepEqual(bodyOf(request(2)).thinking, { type: 'disabled' });
    const detail = await fixture.getSession(sessionId);
    assert.equal(detail.body.spec.reasoningLevel, 'low', 'the stored session default is unchanged');
  });

  it('an override cannot unset a default: a message that omits reasoningLevel (or sends other overrides) keeps it', async () => {
    const sessionId = await fixture.newSession({
      systemPrompt: 's',
      reasoningLevel: 'high',
      metadata: { tier: 'gold' },
    });
    await fixture.sendMessage(sessionId, { prompt: 'only metadata', metadata: { ticket: 't-1' } });
    await fixture.sendMessage(sessionId, { prompt: 'empty metadata', metadata: {} });
    for (const index of [0, 1]) {
      assert.deepEqual(bodyOf(request(index)).thinking, {
        type: 'enabled',
        budget_tokens: anthropicThinkingBudget(80),
      });
    }
    const nulled = await fixture.postMessage(sessionId, { prompt: 'null level', reasoningLevel: null });
    assert.equal(nulled.status, 400, 'null is not a way to unset the default');
    assert.equal(nulled.body.error, 'invalid_request');
    await fixture.sendMessage(sessionId, { prompt: 'after the refused null' });
    assert.deepEqual(bodyOf(request(2)).thinking, {
      type: 'enabled',
      budget_tokens: anthropicThinkingBudget(80),
    });
    assert.equal(fixture.fake.requests.length, 3, 'the refused message never ran');
  });

  it('run metadata is the session metadata merged with the override (run keys win), on the run snapshot only', async () => {
    const sessionId = await fixture.newSession({
      systemPrompt: 's',
      metadata: { customer: 'c1', channel: 'web' },
    });
    const overridden = await fixture.sendMessage(sessionId, {
      prompt: 'p',
      metadata: { channel: 'email', ticket: 't-42' },
    });
    assert.deepEqual((await fixture.runSnapshot(overridden.runId)).body.metadata, {
      customer: 'c1',
      channel: 'email',
      ticket: 't-42',
    });
    const plain = await fixture.sendMessage(sessionId, { prompt: 'p2' });
    assert.deepEqual((await fixture.runSnapshot(plain.runId)).body.metadata, {
      customer: 'c1',
      channel: 'web',
    });
    assert.deepEqual((await fixture.getSession(sessionId)).body.metadata, { customer: 'c1', channel: 'web' });
  });

  it('the merged metadata must still fit the limits (16 entries, 4 KB): otherwise 400 and no run starts', async () => {
    const entries = (prefix: string, count: number, valueLength: number) =>
      Object.fromEntries(
        Array.from({ length: count }, (_, index) => [`${prefix}${index}`, 'v'.repeat(valueLength)]),
      );
    const sessionId = await fixture.newSession({ systemPrompt: 's', metadata: entries('s', 9, 250) });

    const tooMany = await fixture.postMessage(sessionId, { prompt: 'p', metadata: entries('m', 8, 1) });
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.body.error, 'invalid_request');
    assert.match(
      tooMany.body.message,
      /^metadata: the session's metadata merged with this message's must have at most 16 entries \(got 17\)$/,
    );

    const tooBig = await fixture.postMessage(sessionId, { prompt: 'p', metadata: entries('m', 7, 250) });
    assert.equal(tooBig.status, 400);
    assert.match(
      tooBig.body.message,
      /^metadata: the session's metadata merged with this message's serialized size must be at most 4 KB/,
    );

    const session = (await fixture.getSession(sessionId)).body;
    assert.equal(session.activeRunId, null, 'no run was started');
    const fits = await fixture.sendMessage(sessionId, { prompt: 'p', metadata: entries('m', 2, 10) });
    assert.equal(Object.keys((await fixture.runSnapshot(fits.runId)).body.metadata).length, 11);
  });

  it('tools in a message refresh the definitions for that run only (an updated mcp_local catalog)', async () => {
    const sessionId = await fixture.newSession({ systemPrompt: 's', tools: [mcpLocal('search_v1')] });
    await fixture.sendMessage(sessionId, { prompt: 'one' });
    await fixture.sendMessage(sessionId, { prompt: 'two', tools: [mcpLocal('search_v2')] });
    await fixture.sendMessage(sessionId, { prompt: 'three' });
    assert.deepEqual(toolNames(request(0)), ['search_v1']);
    assert.deepEqual(
      toolNames(request(1)),
      ['search_v2'],
      'the refreshed catalog replaces the session one for this run',
    );
    assert.deepEqual(
      toolNames(request(2)),
      ['search_v1'],
      'the next run without tools sees the session tools again',
    );
  });

  it("a message's local tool named like the session's mcp_local server label adds a tool, it does not replace the server", async () => {
    const sessionId = await fixture.newSession({ systemPrompt: 's', tools: [mcpLocal('search_v1')] });
    await fixture.sendMessage(sessionId, { prompt: 'one', tools: [{ kind: 'local', name: 'docs' }] });
    assert.deepEqual(toolNames(request(0)).sort(), ['docs', 'search_v1']);
  });

  it('attachments reach the provider as file parts on their run; on later runs the older turn is text only', async () => {
    const sessionId = await fixture.newSession();
    await fixture.sendMessage(sessionId, {
      messages: [
        {
          role: 'user',
          content: 'Look at these.',
          attachments: [
            { type: 'input_file', mimeType: 'image/png', filename: 'dot.png', data: PNG_BASE64 },
            { type: 'input_file_url', url: 'https://127.0.0.1:9/report.pdf', mimeType: 'application/pdf' },
          ],
        },
      ],
    });
    const current = blocksOf(bodyOf(request(0)).messages.at(-1));
    const image = current.find((block) => block.type === 'image');
    assert.deepEqual(image?.source, { type: 'base64', media_type: 'image/png', data: PNG_BASE64 });
    const document = current.find((block) => block.type === 'document');
    assert.deepEqual(document?.source, { type: 'url', url: 'https://127.0.0.1:9/report.pdf' });

    await fixture.sendMessage(sessionId, { prompt: 'And now?' });
    const messages = bodyOf(request(1)).messages;
    assert.deepEqual(transcript(request(1)), ['user: Look at these.', 'assistant: ok', 'user: And now?']);
    assert.deepEqual(
      blocksOf(messages[0]).map((block) => block.type),
      ['text'],
      'the older turn is re-sent as text only',
    );
    assert.ok(!JSON.stringify(bodyOf(request(1))).includes(PNG_BASE64), 'the bytes are not re-sent');
  });

  it('a failed run (provider 400) appends nothing and frees the session for the next message', async () => {
    fixture.fake.enqueue(
      { text: ['first'] },
      { type: 'http-error', status: 400, message: 'bad request' },
      { text: ['third'] },
    );
    const sessionId = await fixture.newSession();
    await fixture.sendMessage(sessionId, { prompt: 'one' });
    const failed = await fixture.sendMessage(sessionId, { prompt: 'this one fails' });
    assert.equal(terminalOf(failed.frames)?.type, 'error');
    assert.equal((await fixture.replay(sessionId)).body.total, 2, 'the failed turn is not appended');
    const next = await fixture.sendMessage(sessionId, { prompt: 'three' });
    assert.equal(terminalOf(next.frames)?.type, 'result');
    assert.deepEqual(transcript(fixture.fake.requests.at(-1)), [
      'user: one',
      'assistant: first',
      'user: three',
    ]);
    assert.equal((await fixture.replay(sessionId)).body.total, 4);
  });

  it('a cancelled run appends nothing and frees the session for the next message', async () => {
    // After its first delta the reply waits for the cancel's answer: the run is in flight when it lands.
    const cancelled = deferred();
    fixture.fake.enqueue(
      {
        text: Array.from({ length: 200 }, () => 'x'),
        holdAfterChunks: EVENTS_THROUGH_FIRST_TEXT,
        holdUntil: cancelled.promise,
      },
      { text: ['after'] },
    );
    const sessionId = await fixture.newSession();
    const run = await fixture.startMessage(sessionId, { prompt: 'long one' });
    await run.waitForType('assistant_delta');
    assert.equal((await fixture.cancelRun(run.runId)).status, 200);
    cancelled.resolve();
    assert.equal(terminalOf(await run.ended)?.type, 'cancelled');
    assert.equal((await fixture.replay(sessionId)).body.total, 0);
    const next = await fixture.sendMessage(sessionId, { prompt: 'short one' });
    assert.equal(terminalOf(next.frames)?.type, 'result');
    assert.deepEqual(
      transcript(fixture.fake.requests.at(-1)),
      ['user: short one'],
      'the cancelled turn is not replayed',
    );
    assert.equal((await fixture.replay(sessionId)).body.total, 2);
  });

  it('lastInteractionDate moves forward after a successful message run', async () => {
    const sessionId = await fixture.newSession();
    const before = (await fixture.getSession(sessionId)).body;
    await sleep(15); // so that the clock has moved on: a slower machine only moves it further
    await fixture.sendMessage(sessionId, { prompt: 'tick' });
    const detail = (await fixture.getSession(sessionId)).body;
    assert.ok(Date.parse(detail.lastInteractionDate) > Date.parse(before.lastInteractionDate));
    assert.equal(detail.creationDate, before.creationDate, 'creationDate does not move');
    assert.ok(Date.parse(detail.lastInteractionDate) <= Date.now());
  });
});
