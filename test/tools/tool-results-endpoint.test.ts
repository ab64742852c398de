import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { readAll } from '../support/sse-client.ts';
import { startRunFixture, types, type RunFixture } from '../support/run-fixture.ts';
import {
  ofType,
  PNG_BASE64,
  postToolResult,
  toolResultBlocks,
  toolResultText,
  WEATHER_TOOL,
  type RunWatch,
} from './tool-support.ts';

const MIB = 1024 * 1024;
const READ_TOOL = {
  kind: 'local',
  name: 'read_doc',
  readOnly: true,
  parameters: { type: 'object', properties: {} },
};
const base64Of = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');

describe('POST {ws}/agent-runs/{runId}/tool-results', { timeout: 120_000 }, () => {
  let fixture: RunFixture;
  before(async () => {
    fixture = await startRunFixture('anthropic-messages', { engine: { shutdownGraceMs: 200 } });
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  const post = (runId: string, body: unknown) => postToolResult(fixture, runId, body);

  /** A run waiting on one get_weather call `toolu_1`. */
  async function pendingCall(): Promise<RunWatch> {
    fixture.fake.enqueue(
      { toolCalls: [{ id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
      { text: ['Done.'] },
    );
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'p', tools: [WEATHER_TOOL] });
    await run.waitForType('local_tool_call');
    return run;
  }

  /** The rejected posts consumed nothing: a valid answer is still accepted, echoed once, and the run completes. */
  async function answerValidly(run: RunWatch): Promise<void> {
    const ok = await post(run.runId, { toolUseId: 'toolu_1', result: 'valid answer' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const frames = await run.ended;
    assert.deepEqual(
      ofType(frames, 'local_tool_result_in').map((frame) => frame.data.data.output),
      ['valid answer'],
    );
    assert.equal(types(frames).at(-1), 'result');
  }

  async function rejected(runId: string, body: unknown): Promise<string> {
    const response = await post(runId, body);
    assert.equal(response.status, 400, JSON.stringify(response.body).slice(0, 300));
    assert.equal(response.body.error, 'invalid_request');
    return response.body.message as string;
  }

  it('exactly one of result or error: both or neither gives 400', async () => {
    const run = await pendingCall();
    await rejected(run.runId, { toolUseId: 'toolu_1', result: 'a', error: 'b' });
    await rejected(run.runId, { toolUseId: 'toolu_1' });
    await rejected(run.runId, {
      toolUseId: 'toolu_1',
      files: [{ filename: 'a.png', mimeType: 'image/png', data: PNG_BASE64 }],
    });
    await rejected(run.runId, { toolUseId: 'toolu_1', result: { structured: true } });
    await answerValidly(run);
  });

  it('result is at most 2 MB and error at most 8 KB: larger ones give 400', async () => {
    const run = await pendingCall();
    assert.match(
      await rejected(run.runId, { toolUseId: 'toolu_1', result: 'x'.repeat(2 * MIB + 1) }),
      /result/,
    );
    assert.match(await rejected(run.runId, { toolUseId: 'toolu_1', result: 'é'.repeat(MIB + 1) }), /result/);
    assert.match(
      await rejected(run.runId, { toolUseId: 'toolu_1', error: 'e'.repeat(8 * 1024 + 1) }),
      /error/,
    );
    await answerValidly(run);
  });

  it('files: more than 20, a disallowed MIME type or malformed base64 give 400', async () => {
    const run = await pendingCall();
    const file = { filename: 'a.png', mimeType: 'image/png', data: PNG_BASE64 };
    assert.match(
      await rejected(run.runId, { toolUseId: 'toolu_1', result: 'r', files: Array(21).fill(file) }),
      /files/,
    );
    for (const mimeType of ['application/zip', 'image/svg+xml', 'application/octet-stream', 'video/mp4']) {
      assert.match(
        await rejected(run.runId, { toolUseId: 'toolu_1', result: 'r', files: [{ ...file, mimeType }] }),
        /mimeType/,
      );
    }
    assert.match(
      await rejected(run.runId, { toolUseId: 'toolu_1', result: 'r', files: 'a.png' }),
      /^files: must be an array$/,
    );
    for (const data of ['not base64!', 'abc', `data:image/png;base64,${PNG_BASE64}`, 'iVBO Rw0K', '']) {
      assert.match(
        await rejected(run.runId, { toolUseId: 'toolu_1', result: 'r', files: [{ ...file, data }] }),
        /data/,
      );
    }
    await answerValidly(run);
  });

  it('files: more than 5 MB decoded in total gives 400', async () => {
    const run = await pendingCall();
    const half = { filename: 'big.pdf', mimeType: 'application/pdf', data: base64Of(2.75 * MIB) };
    assert.match(
      await rejected(run.runId, { toolUseId: 'toolu_1', result: 'r', files: [half, half] }),
      /5 MB/,
    );
    await answerValidly(run);
  });

  it('answers inside the limits are accepted: a 2,000,000-byte result, an 8,000-byte error, 20 files, 4.9 MB of files', async () => {
    fixture.fake.enqueue(
      { toolCalls: ['r1', 'r2', 'r3', 'r4'].map((id) => ({ id, name: 'read_doc', input: {} })) },
      { text: ['All read.'] },
    );
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'p', tools: [READ_TOOL] });
    await run.waitFor(() => ofType(run.frames, 'local_tool_call').length === 4);
    const small = { filename: 'p.png', mimeType: 'image/png', data: PNG_BASE64 };
    const answers = [
      { toolUseId: 'r1', result: 'x'.repeat(2_000_000) },
      { toolUseId: 'r2', error: 'e'.repeat(8000) },
      { toolUseId: 'r3', result: 'twenty', files: Array(20).fill(small) },
      {
        toolUseId: 'r4',
        result: 'big',
        files: [{ filename: 'doc.pdf', mimeType: 'application/pdf', data: base64Of(4_900_000) }],
      },
    ];
    for (const answer of answers) {
      const response = await post(run.runId, answer);
      assert.equal(
        response.status,
        200,
        `${answer.toolUseId}: ${JSON.stringify(response.body).slice(0, 300)}`,
      );
    }
    const frames = await run.ended;
    assert.equal(types(frames).at(-1), 'result');
    assert.equal(ofType(frames, 'local_tool_result_in').length, 4);
  });

  it('files are ignored when error is set (not validated, not echoed, not sent to the model)', async () => {
    const run = await pendingCall();
    const response = await post(run.runId, {
      toolUseId: 'toolu_1',
      error: 'renderer crashed',
      files: [
        { filename: 'a.png', mimeType: 'image/png', data: PNG_BASE64 },
        { filename: 'b.bin', mimeType: 'application/zip', data: 'not base64!' },
      ],
    });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    const frames = await run.ended;
    assert.equal(types(frames).at(-1), 'result');
    const echo = ofType(frames, 'local_tool_result_in')[0];
    assert.equal(echo?.data.data.output, 'renderer crashed');
    assert.ok(!('files' in (echo?.data.data ?? {})), 'no files on the echo');
    const [block] = toolResultBlocks(fixture.fake.requests[1]);
    assert.equal(block?.is_error, true);
    assert.ok(!JSON.stringify(block).includes(PNG_BASE64), 'no file reached the model');
    const notAnArray = await pendingCall();
    const malformed = await post(notAnArray.runId, { toolUseId: 'toolu_1', error: 'e', files: 'x' });
    assert.equal(
      malformed.status,
      200,
      `a files field of any shape is ignored: ${JSON.stringify(malformed.body)}`,
    );
    await notAnArray.ended;
  });

  it('404 unknown_tool_use for a toolUseId that matches no pending call', async () => {
    const run = await pendingCall();
    const response = await post(run.runId, { toolUseId: 'toolu_never_called', result: 'x' });
    assert.equal(response.status, 404);
    assert.equal(response.body.error, 'unknown_tool_use');
    await answerValidly(run);
  });

  it('404 unknown_tool_use for a second answer to one call while the run is still going (read-only batch), also on another API replica', async () => {
    fixture.fake.enqueue(
      {
        toolCalls: [
          { id: 'r1', name: 'read_doc', input: {} },
          { id: 'r2', name: 'read_doc', input: {} },
        ],
      },
      { text: ['Read both.'] },
    );
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'p', tools: [READ_TOOL] });
    await run.waitFor(() => ofType(run.frames, 'local_tool_call').length === 2);
    assert.equal((await post(run.runId, { toolUseId: 'r1', result: 'first answer' })).status, 200);
    const again = await post(run.runId, { toolUseId: 'r1', result: 'second answer' });
    assert.equal(again.status, 404);
    assert.equal(again.body.error, 'unknown_tool_use');
    // The answers are stored, not held by the replica that took them: another one knows r1 is answered.
    const other = await fixture.server.otherReplica();
    const elsewhere = await other.request('POST', `${fixture.ws}/agent-runs/${run.runId}/tool-results`, {
      body: { toolUseId: 'r1', result: 'third answer' },
      headers: fixture.headers,
    });
    assert.equal(elsewhere.status, 404);
    assert.equal(elsewhere.body.error, 'unknown_tool_use');
    const r2 = await other.request('POST', `${fixture.ws}/agent-runs/${run.runId}/tool-results`, {
      body: { toolUseId: 'r2', result: 'r2 answer' },
      headers: fixture.headers,
    });
    assert.equal(r2.status, 200);
    const frames = await run.ended;
    assert.equal(types(frames).at(-1), 'result');
    const echoed = ofType(frames, 'local_tool_result_in').filter(
      (frame) => frame.data.data.toolUseId === 'r1',
    );
    assert.deepEqual(
      echoed.map((frame) => frame.data.data.output),
      ['first answer'],
    );
    const r1 = toolResultBlocks(fixture.fake.requests[1]).find((block) => block.tool_use_id === 'r1');
    assert.equal(toolResultText(r1), 'first answer');
  });

  it('404 unknown_tool_use for a second answer to a mutating call while the run goes on', async () => {
    fixture.fake.enqueue(
      {
        toolCalls: [
          { id: 'm1', name: 'get_weather', input: { city: 'A' } },
          { id: 'm2', name: 'get_weather', input: { city: 'B' } },
        ],
      },
      { text: ['Both.'] },
    );
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'p', tools: [WEATHER_TOOL] });
    await run.waitForType('local_tool_call');
    const [first, second] = await Promise.all([
      post(run.runId, { toolUseId: 'm1', result: 'one' }),
      post(run.runId, { toolUseId: 'm1', result: 'two' }),
    ]);
    assert.deepEqual([first.status, second.status].sort(), [200, 404]);
    assert.equal([first, second].find((response) => response.status === 404)?.body.error, 'unknown_tool_use');
    await run.waitFor((frame) => frame.data.type === 'local_tool_call' && frame.data.data.toolUseId === 'm2');
    const late = await post(run.runId, { toolUseId: 'm1', result: 'three' });
    assert.equal(late.status, 404);
    assert.equal(late.body.error, 'unknown_tool_use');
    assert.equal((await post(run.runId, { toolUseId: 'm2', result: 'b' })).status, 200);
    const frames = await run.ended;
    assert.equal(ofType(frames, 'local_tool_result_in').length, 2);
  });

  it('409 run_terminal for any tool-result after the terminal event', async () => {
    const run = await pendingCall();
    await answerValidly(run);
    for (const toolUseId of ['toolu_1', 'toolu_other']) {
      const response = await post(run.runId, { toolUseId, result: 'too late' });
      assert.equal(response.status, 409, toolUseId);
      assert.equal(response.body.error, 'run_terminal');
    }
    const replay = await readAll(fixture.streamUrl(run.runId), fixture.headers);
    assert.equal(ofType(replay, 'local_tool_result_in').length, 1, 'the late results were dropped');
  });

  it('the run snapshot lists the calls awaiting an answer (pendingToolCalls) until they are answered', async () => {
    const run = await pendingCall();
    const snapshot = () =>
      fixture.server.request('GET', `${fixture.ws}/agent-runs/${run.runId}`, { headers: fixture.headers });
    const waiting = await snapshot();
    assert.equal(waiting.status, 200);
    assert.deepEqual(waiting.body.pendingToolCalls, [
      { toolUseId: 'toolu_1', name: 'get_weather', kind: 'local' },
    ]);
    await answerValidly(run);
    assert.deepEqual((await snapshot()).body.pendingToolCalls, []);
  });

  it('404 not_found for an unknown run', async () => {
    const response = await post('run_01nosuchrun0000000000000000', { toolUseId: 'toolu_1', result: 'x' });
    assert.equal(response.status, 404);
    assert.equal(response.body.error, 'not_found');
  });

  it('after cancellation a tool-result is accepted with 200 and ignored', async () => {
    fixture.fake.enqueue({ type: 'hang' });
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'p', tools: [WEATHER_TOOL] });
    await fixture.fake.waitForRequests(1);
    const cancel = await fixture.server.request('POST', `${fixture.ws}/agent-runs/${run.runId}/cancel`, {
      headers: fixture.headers,
    });
    assert.equal(cancel.status, 200);
    const frames = await run.ended;
    assert.deepEqual(types(frames), ['cancelled']);
    for (const toolUseId of ['toolu_1', 'toolu_2']) {
      const response = await post(run.runId, { toolUseId, result: 'after cancel' });
      assert.equal(response.status, 200, JSON.stringify(response.body));
    }
    const replay = await readAll(fixture.streamUrl(run.runId), fixture.headers);
    assert.deepEqual(types(replay), ['cancelled'], 'nothing was added to the log');
  });
});
