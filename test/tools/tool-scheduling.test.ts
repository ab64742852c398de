import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, describe, it } from 'node:test';
import { startRunFixture, types, type RunFixture } from '../support/run-fixture.ts';
import type { SseFrame } from '../support/sse-client.ts';
import { ofType, postToolResult, toolResultBlocks, toolResultText, type RunWatch } from './tool-support.ts';

const READ_TOOL = {
  kind: 'local',
  name: 'read_file',
  readOnly: true,
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};
const WRITE_TOOL = {
  kind: 'local',
  name: 'write_file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

const callIds = (frames: readonly SseFrame[]) =>
  ofType(frames, 'local_tool_call').map((frame) => frame.data.data.toolUseId);
const isCall = (toolUseId: string) => (frame: SseFrame) =>
  frame.data.type === 'local_tool_call' && frame.data.data.toolUseId === toolUseId;

describe('scheduling of client tool calls', { timeout: 120_000 }, () => {
  let fixture: RunFixture;
  before(async () => {
    fixture = await startRunFixture('anthropic-messages', { engine: { shutdownGraceMs: 200 } });
  });
  after(() => fixture.close());
  afterEach(() => fixture.cleanUp());

  // A sleep before an assertion that something has not happened (yet) is a negative check: a slower
  // machine only makes it pass more easily. Everything awaited positively is awaited on its frame.

  const answer = async (run: RunWatch, toolUseId: string, result: string) => {
    const response = await postToolResult(fixture, run.runId, { toolUseId, result });
    assert.equal(response.status, 200, `${toolUseId}: ${JSON.stringify(response.body)}`);
  };

  it('readOnly calls of one turn are all published before any answer, may be answered in reverse order, results go back in emit order', async () => {
    fixture.fake.enqueue(
      {
        toolCalls: [
          { id: 'toolu_r1', name: 'read_file', input: { path: 'a.txt' } },
          { id: 'toolu_r2', name: 'read_file', input: { path: 'b.txt' } },
        ],
      },
      { text: ['Read both.'] },
    );
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'read', tools: [READ_TOOL] });
    await run.waitFor(isCall('toolu_r1'));
    await run.waitFor(isCall('toolu_r2'));
    assert.deepEqual(callIds(run.frames), ['toolu_r1', 'toolu_r2']);
    assert.equal(ofType(run.frames, 'local_tool_result_in').length, 0, 'nothing answered yet');

    await answer(run, 'toolu_r2', 'contents of b');
    // Each answer is echoed as it comes in, while the rest of its batch is still pending.
    await run.waitFor((frame) => frame.data.type === 'local_tool_result_in');
    await sleep(300);
    assert.equal(
      fixture.fake.requests.length,
      1,
      'the batch waits for every read-only call before the next model turn',
    );
    await answer(run, 'toolu_r1', 'contents of a');
    const frames = await run.ended;
    assert.equal(types(frames).at(-1), 'result');
    assert.deepEqual(
      ofType(frames, 'local_tool_result_in').map((frame) => frame.data.data.toolUseId),
      ['toolu_r2', 'toolu_r1'],
      'echoed in the order the answers arrived, once each',
    );
    assert.equal(fixture.fake.requests.length, 2);
    const blocks = toolResultBlocks(fixture.fake.requests[1]);
    assert.deepEqual(
      blocks.map((block) => block.tool_use_id),
      ['toolu_r1', 'toolu_r2'],
      'tool_results in the model emit order',
    );
    assert.deepEqual(blocks.map(toolResultText), ['contents of a', 'contents of b']);
  });

  it('mutating calls stay strictly sequential: the second local_tool_call is published only after the first is answered', async () => {
    fixture.fake.enqueue(
      {
        toolCalls: [
          { id: 'toolu_w1', name: 'write_file', input: { path: 'a.txt' } },
          { id: 'toolu_w2', name: 'write_file', input: { path: 'b.txt' } },
        ],
      },
      { text: ['Wrote both.'] },
    );
    const run = await fixture.startRun({ systemPrompt: 's', prompt: 'write', tools: [WRITE_TOOL] });
    await run.waitFor(isCall('toolu_w1'));
    await sleep(200);
    assert.deepEqual(callIds(run.frames), ['toolu_w1'], 'no second call while the first is unanswered');

    const second = await postToolResult(fixture, run.runId, { toolUseId: 'toolu_w2', result: 'too early' });
    assert.equal(second.status, 404, 'the second call is not pending yet');
    assert.equal(second.body.error, 'unknown_tool_use');

    await answer(run, 'toolu_w1', 'wrote a');
    await run.waitFor(isCall('toolu_w2'));
    await answer(run, 'toolu_w2', 'wrote b');
    const frames = await run.ended;
    assert.equal(types(frames).at(-1), 'result');
    const order = frames
      .filter((frame) => frame.data.type === 'local_tool_call' || frame.data.type === 'local_tool_result_in')
      .map((frame) => `${frame.data.type}:${frame.data.data.toolUseId}`);
    assert.deepEqual(order, [
      'local_tool_call:toolu_w1',
      'local_tool_result_in:toolu_w1',
      'local_tool_call:toolu_w2',
      'local_tool_result_in:toolu_w2',
    ]);
    assert.deepEqual(
      toolResultBlocks(fixture.fake.requests[1]).map((block) => block.tool_use_id),
      ['toolu_w1', 'toolu_w2'],
    );
  });

  it('a mutating call emitted after read-only calls waits until the read-only batch is answered', async () => {
    fixture.fake.enqueue(
      {
        toolCalls: [
          { id: 'toolu_r1', name: 'read_file', input: { path: 'a.txt' } },
          { id: 'toolu_r2', name: 'read_file', input: { path: 'b.txt' } },
          { id: 'toolu_w1', name: 'write_file', input: { path: 'c.txt' } },
        ],
      },
      { text: ['Done.'] },
    );
    const run = await fixture.startRun({
      systemPrompt: 's',
      prompt: 'merge',
      tools: [READ_TOOL, WRITE_TOOL],
    });
    await run.waitFor(isCall('toolu_r2'));
    await sleep(200);
    assert.deepEqual(callIds(run.frames), ['toolu_r1', 'toolu_r2']);
    await answer(run, 'toolu_r1', 'a');
    await sleep(150);
    assert.deepEqual(callIds(run.frames), ['toolu_r1', 'toolu_r2'], 'still waiting for toolu_r2');
    await answer(run, 'toolu_r2', 'b');
    await run.waitFor(isCall('toolu_w1'));
    await answer(run, 'toolu_w1', 'c written');
    const frames = await run.ended;
    assert.equal(types(frames).at(-1), 'result');
    assert.deepEqual(
      toolResultBlocks(fixture.fake.requests[1]).map((block) => block.tool_use_id),
      ['toolu_r1', 'toolu_r2', 'toolu_w1'],
    );
  });

  it('mcp_local annotations are echoed only: a readOnlyHint does not make calls concurrent', async () => {
    fixture.fake.enqueue(
      {
        toolCalls: [
          { id: 'toolu_m1', name: 'list_issues', input: {} },
          { id: 'toolu_m2', name: 'list_issues', input: {} },
        ],
      },
      { text: ['Listed.'] },
    );
    const run = await fixture.startRun({
      systemPrompt: 's',
      prompt: 'list',
      tools: [
        {
          kind: 'mcp_local',
          name: 'tracker',
          tools: [{ name: 'list_issues', annotations: { readOnlyHint: true } }],
        },
      ],
    });
    const first = await run.waitFor(isCall('toolu_m1'));
    assert.deepEqual(first.data.data.annotations, { readOnlyHint: true });
    await sleep(200);
    assert.deepEqual(callIds(run.frames), ['toolu_m1'], 'sequential like any non-readOnly tool');
    await answer(run, 'toolu_m1', 'issues page 1');
    await run.waitFor(isCall('toolu_m2'));
    await answer(run, 'toolu_m2', 'issues page 2');
    assert.equal(types(await run.ended).at(-1), 'result');
  });
});
