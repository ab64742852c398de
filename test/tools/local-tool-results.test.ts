import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startRunFixture, types, type RunFixture } from '../support/run-fixture.ts';
import {
  ofType,
  PNG_BASE64,
  postToolResult,
  toolResultBlocks,
  toolResultText,
  WEATHER_TOOL,
} from './tool-support.ts';

describe('local tool results: the echo and what the model receives', { timeout: 120_000 }, () => {
  let fixture: RunFixture;
  before(async () => {
    fixture = await startRunFixture('anthropic-messages', { engine: { shutdownGraceMs: 200 } });
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  it('local_tool_result_in echoes output and file metadata only (filename, mimeType, sizeBytes), never the bytes', async () => {
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_f', name: 'get_weather', input: { city: 'Oslo' } }] },
      { text: ['Nice map.'] },
    );
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'map?', tools: [WEATHER_TOOL] });
    await run.waitForType('local_tool_call');
    const csvText = 'city,temp\nOslo,3\n';
    const csv = Buffer.from(csvText).toString('base64');
    const posted = await postToolResult(fixture, run.runId, {
      toolUseId: 'toolu_f',
      result: 'see attached',
      files: [
        { filename: 'map.png', mimeType: 'image/png', data: PNG_BASE64 },
        { filename: 'temps.csv', mimeType: 'text/csv', data: csv },
      ],
    });
    assert.equal(posted.status, 200);
    const frames = await run.ended;
    const echoes = ofType(frames, 'local_tool_result_in');
    assert.equal(echoes.length, 1);
    assert.deepEqual(echoes[0]?.data.data, {
      toolUseId: 'toolu_f',
      output: 'see attached',
      files: [
        { filename: 'map.png', mimeType: 'image/png', sizeBytes: Buffer.from(PNG_BASE64, 'base64').length },
        { filename: 'temps.csv', mimeType: 'text/csv', sizeBytes: Buffer.byteLength(csvText) },
      ],
    });
    for (const frame of frames) {
      assert.ok(!frame.raw.includes(PNG_BASE64), `${frame.data.type} frame carries no file bytes`);
      assert.ok(!frame.raw.includes(csv), `${frame.data.type} frame carries no file bytes`);
    }
  });

  it('files reach the model as native file parts on the next turn (Anthropic: an image block in the tool_result)', async () => {
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_img', name: 'get_weather', input: { city: 'Rome' } }] },
      { text: ['I see it.'] },
    );
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'radar?', tools: [WEATHER_TOOL] });
    await run.waitForType('local_tool_call');
    const body = {
      toolUseId: 'toolu_img',
      result: 'radar image',
      files: [{ filename: 'radar.png', mimeType: 'image/png', data: PNG_BASE64 }],
    };
    assert.equal((await postToolResult(fixture, run.runId, body)).status, 200);
    assert.equal(types(await run.ended).at(-1), 'result');
    const [block] = toolResultBlocks(fixture.fake.requests[1]);
    assert.equal(block?.tool_use_id, 'toolu_img');
    assert.ok(Array.isArray(block?.content), JSON.stringify(block));
    assert.equal(toolResultText(block), 'radar image');
    const image = (block?.content as { type: string; source?: Record<string, unknown> }[]).find(
      (part) => part.type === 'image',
    );
    assert.deepEqual(image?.source, { type: 'base64', media_type: 'image/png', data: PNG_BASE64 });
  });

  it('an error answer reaches the model as a tool error (Anthropic is_error: true) and is echoed', async () => {
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_err', name: 'get_weather', input: { city: 'Atlantis' } }] },
      { text: ['No data.'] },
    );
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'weather?', tools: [WEATHER_TOOL] });
    await run.waitForType('local_tool_call');
    assert.equal(
      (
        await postToolResult(fixture, run.runId, {
          toolUseId: 'toolu_err',
          error: 'city not found: Atlantis',
        })
      ).status,
      200,
    );
    const frames = await run.ended;
    assert.equal(types(frames).at(-1), 'result');
    const echo = ofType(frames, 'local_tool_result_in')[0];
    assert.equal(echo?.data.data.toolUseId, 'toolu_err');
    assert.equal(echo?.data.data.output, 'city not found: Atlantis');
    const [block] = toolResultBlocks(fixture.fake.requests[1]);
    assert.equal(block?.is_error, true);
    assert.match(toolResultText(block), /city not found: Atlantis/);
  });

  it('outputSchema: host-side validation turns a non-conforming result into a tool error; a conforming one passes as is', async () => {
    const tool = {
      kind: 'local',
      name: 'get_temp',
      outputSchema: { type: 'object', properties: { tempC: { type: 'number' } }, required: ['tempC'] },
    };
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_bad', name: 'get_temp', input: {} }] },
      { toolCalls: [{ id: 'toolu_good', name: 'get_temp', input: {} }] },
      { text: ['3 degrees.'] },
    );
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'temp?', tools: [tool] });
    await run.waitFor(
      (frame) => frame.data.type === 'local_tool_call' && frame.data.data.toolUseId === 'toolu_bad',
    );
    assert.equal(
      (await postToolResult(fixture, run.runId, { toolUseId: 'toolu_bad', result: '{"tempC":"warm"}' }))
        .status,
      200,
    );
    await run.waitFor(
      (frame) => frame.data.type === 'local_tool_call' && frame.data.data.toolUseId === 'toolu_good',
    );
    assert.equal(
      (await postToolResult(fixture, run.runId, { toolUseId: 'toolu_good', result: '{"tempC":3}' })).status,
      200,
    );
    assert.equal(types(await run.ended).at(-1), 'result');
    const bad = toolResultBlocks(fixture.fake.requests[1])[0];
    assert.equal(bad?.is_error, true);
    assert.match(toolResultText(bad), /tool_output_invalid/);
    const good = toolResultBlocks(fixture.fake.requests[2]).find(
      (block) => block.tool_use_id === 'toolu_good',
    );
    assert.notEqual(good?.is_error, true);
    assert.equal(toolResultText(good), '{"tempC":3}');
  });
});

describe(
  'tool-result files on OpenAI Chat Completions (tool messages take text only)',
  { timeout: 120_000 },
  () => {
    let fixture: RunFixture;
    before(async () => {
      fixture = await startRunFixture('openai-chat');
    });
    after(() => fixture.close());
    afterEach(() => fixture.cleanUp());

    type ChatMessage = { role: string; content: unknown; tool_call_id?: string };

    it('the files follow the tool message in a user message, as native parts; the tool message keeps its text and names them', async () => {
      fixture.fake.reset();
      fixture.fake.enqueue(
        { toolCalls: [{ id: 'call_img', name: 'get_weather', input: { city: 'Rome' } }] },
        { text: ['I see it.'] },
      );
      const run = await fixture.startRun({ systemPrompt: 's', prompt: 'radar?', tools: [WEATHER_TOOL] });
      await run.waitForType('local_tool_call');
      const body = {
        toolUseId: 'call_img',
        result: 'radar image',
        files: [{ filename: 'radar.png', mimeType: 'image/png', data: PNG_BASE64 }],
      };
      assert.equal((await postToolResult(fixture, run.runId, body)).status, 200);
      assert.equal(types(await run.ended).at(-1), 'result');

      const messages = (fixture.fake.requests[1]?.body as { messages: ChatMessage[] }).messages;
      assert.deepEqual(
        messages.map((message) => message.role),
        ['system', 'user', 'assistant', 'tool', 'user'],
      );
      const tool = messages[3];
      assert.equal(tool?.tool_call_id, 'call_img');
      assert.equal(tool?.content, 'radar image\n[file radar.png (image/png) attached in the next message]');
      assert.ok(!JSON.stringify(tool).includes(PNG_BASE64), 'no base64 in the tool message');
      assert.deepEqual(messages[4]?.content, [
        { type: 'text', text: 'Files returned by get_weather (call_img): radar.png (image/png)' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
      ]);
    });
  },
);
