import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  blocksOf,
  bodyOf,
  startSessionFixture,
  terminalOf,
  toolResultText,
  transcript,
  type SessionFixture,
  type WireBlock,
} from './session-support.ts';

const lookupTool = (retain?: boolean) => ({
  kind: 'local',
  name: 'lookup_order',
  description: 'Order status by id.',
  parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  ...(retain !== undefined && { retain }),
});

describe('retained local tool results in sessions', () => {
  let fixture: SessionFixture;
  before(async () => {
    fixture = await startSessionFixture('anthropic-messages');
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  /** Message 1 calls lookup_order once and the client answers `result`; returns the session id. */
  async function sessionWithOneToolCall(retain: boolean | undefined, result: string): Promise<string> {
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_r1', name: 'lookup_order', input: { id: 'A-1' } }] },
      { text: ['Order A-1 has shipped.'] },
    );
    const sessionId = await fixture.newSession({ systemPrompt: 's', tools: [lookupTool(retain)] });
    const run = await fixture.startMessage(sessionId, { prompt: 'Where is order A-1?' });
    const call = await run.waitForType('local_tool_call');
    assert.equal(call.data.data.toolUseId, 'toolu_r1');
    assert.equal((await fixture.postToolResult(run.runId, { toolUseId: 'toolu_r1', result })).status, 200);
    assert.equal(terminalOf(await run.ended)?.type, 'result');
    return sessionId;
  }

  const allBlocks = (index: number): WireBlock[] =>
    bodyOf(fixture.fake.requests[index]).messages.flatMap((message) => blocksOf(message));

  it('retain: true replays the result on the next message run as tool_use + tool_result in its original place', async () => {
    const sessionId = await sessionWithOneToolCall(true, 'status: shipped via DHL');
    fixture.fake.enqueue({ text: ['Yes, via DHL.'] }, { text: ['Still shipped.'] });
    await fixture.sendMessage(sessionId, { prompt: 'Which carrier?' });

    const messages = bodyOf(fixture.fake.requests[2]).messages;
    assert.deepEqual(
      messages.map((message) => message.role),
      ['user', 'assistant', 'user', 'assistant', 'user'],
    );
    assert.deepEqual(transcript(fixture.fake.requests[2])[0], 'user: Where is order A-1?');
    const [toolUse] = blocksOf(messages[1]).filter((block) => block.type === 'tool_use');
    assert.deepEqual(
      { id: toolUse?.id, name: toolUse?.name, input: toolUse?.input },
      { id: 'toolu_r1', name: 'lookup_order', input: { id: 'A-1' } },
    );
    const [toolResult] = blocksOf(messages[2]).filter((block) => block.type === 'tool_result');
    assert.equal(toolResult?.tool_use_id, 'toolu_r1');
    assert.equal(toolResultText(toolResult), 'status: shipped via DHL');
    assert.notEqual(toolResult?.is_error, true);
    assert.deepEqual(transcript(fixture.fake.requests[2]).slice(3), [
      'assistant: Order A-1 has shipped.',
      'user: Which carrier?',
    ]);

    // Later turns of the same session keep replaying it, still in its original place.
    await fixture.sendMessage(sessionId, { prompt: 'Thanks.' });
    const third = bodyOf(fixture.fake.requests[3]).messages;
    assert.equal(third.length, 7);
    assert.equal(blocksOf(third[1]).find((block) => block.type === 'tool_use')?.id, 'toolu_r1');
    assert.equal(
      toolResultText(blocksOf(third[2]).find((block) => block.type === 'tool_result')),
      'status: shipped via DHL',
    );
  });

  it('a tool without retain (the default) is not replayed: the next run sees text turns only', async () => {
    const sessionId = await sessionWithOneToolCall(undefined, 'status: shipped via UPS');
    fixture.fake.enqueue({ text: ['I do not remember.'] });
    await fixture.sendMessage(sessionId, { prompt: 'Which carrier?' });
    assert.deepEqual(transcript(fixture.fake.requests[2]), [
      'user: Where is order A-1?',
      'assistant: Order A-1 has shipped.',
      'user: Which carrier?',
    ]);
    assert.equal(
      allBlocks(2).filter((block) => block.type === 'tool_use' || block.type === 'tool_result').length,
      0,
    );
    assert.ok(!fixture.fake.requests[2]?.rawBody.includes('via UPS'));
  });

  it('retain: false behaves like the default: nothing is replayed', async () => {
    const sessionId = await sessionWithOneToolCall(false, 'status: lost');
    fixture.fake.enqueue({ text: ['?'] });
    await fixture.sendMessage(sessionId, { prompt: 'Again?' });
    assert.equal(allBlocks(2).filter((block) => block.type === 'tool_result').length, 0);
  });

  it('a retained result over 8 KB is cut to about 8 KB (the run itself saw the whole result)', async () => {
    const big = `HEAD-${'r'.repeat(20_000)}`;
    const sessionId = await sessionWithOneToolCall(true, big);
    const inRun = allBlocks(1).find((block) => block.type === 'tool_result');
    assert.equal(toolResultText(inRun), big, 'an ordinary result is whole for the current run');
    fixture.fake.enqueue({ text: ['fine'] });
    await fixture.sendMessage(sessionId, { prompt: 'next' });
    const replayed = toolResultText(allBlocks(2).find((block) => block.type === 'tool_result'));
    assert.ok(replayed.startsWith('HEAD-rrrr'), 'the start of the result is kept');
    const bytes = Buffer.byteLength(replayed, 'utf8');
    assert.ok(bytes >= 7 * 1024 && bytes <= 8 * 1024 + 256, `about 8 KB, got ${bytes} bytes`);
  });

  it('the 8 KB cut of a retained result keeps whole characters (no broken UTF-8 / U+FFFD)', async () => {
    // 'x' + 'é' (2 bytes each): the 8,192-byte boundary falls in the middle of a character.
    const sessionId = await sessionWithOneToolCall(true, `x${'é'.repeat(6000)}`);
    fixture.fake.enqueue({ text: ['fine'] });
    await fixture.sendMessage(sessionId, { prompt: 'next' });
    const replayed = toolResultText(allBlocks(2).find((block) => block.type === 'tool_result'));
    assert.ok(replayed.startsWith('xéé'));
    assert.ok(!replayed.includes('\uFFFD'), 'the retained text must not end in a replacement character');
  });

  it('retained pairs never appear in the replay endpoint and do not count in total', async () => {
    const sessionId = await sessionWithOneToolCall(true, 'status: shipped');
    const afterFirst = (await fixture.replay(sessionId)).body;
    assert.equal(afterFirst.total, 2);
    assert.deepEqual(
      afterFirst.events.map((event: { type: string; text: string }) => [event.type, event.text]),
      [
        ['user_message', 'Where is order A-1?'],
        ['assistant_message', 'Order A-1 has shipped.'],
      ],
    );
    fixture.fake.enqueue({ text: ['ok then'] });
    await fixture.sendMessage(sessionId, { prompt: 'next' });
    const afterSecond = (await fixture.replay(sessionId)).body;
    assert.equal(afterSecond.total, 4);
    assert.deepEqual(
      afterSecond.events.map((event: { seq: number }) => event.seq),
      [0, 1, 2, 3].map((offset) => afterSecond.events[0].seq + offset),
      'seq counts messages only: no gap where the tool pair sits',
    );
    const serialized = JSON.stringify(afterSecond);
    assert.ok(!serialized.includes('toolu_r1') && !serialized.includes('status: shipped'));
    const last = (await fixture.replay(sessionId, '?lastMessages=3')).body;
    assert.equal(last.total, 4);
    assert.deepEqual(
      last.events.map((event: { type: string }) => event.type),
      ['assistant_message', 'user_message', 'assistant_message'],
    );
    assert.equal((await fixture.getSession(sessionId)).body.messageCount, 4);
  });
});
