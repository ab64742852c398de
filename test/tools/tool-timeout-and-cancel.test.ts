import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, describe, it } from 'node:test';
import { readAll } from '../support/sse-client.ts';
import { startRunFixture, types, type RunFixture } from '../support/run-fixture.ts';
import {
  bodyOf,
  ofType,
  postToolResult,
  snapshotOf,
  TERMINAL_TYPES,
  toolResultBlocks,
  WEATHER_TOOL,
} from './tool-support.ts';

/** The shortest wait a run may ask for (the API's minimum): the timeout cases wait it out for real. */
const SHORTEST_TOOL_TIMEOUT_MS = 1000;

const terminalsOf = (types: string[]) => types.filter((type) => TERMINAL_TYPES.includes(type));

describe(
  'local tool timeout, cancellation while waiting, and the tool-turn cap',
  { timeout: 120_000 },
  () => {
    let fixture: RunFixture;
    before(async () => {
      fixture = await startRunFixture('anthropic-messages', { engine: { shutdownGraceMs: 200 } });
    });
    after(() => fixture.close());
    afterEach(() => fixture.cleanUp());

    const cancel = (runId: string) =>
      fixture.server.request('POST', `${fixture.ws}/agent-runs/${runId}/cancel`, {
        headers: fixture.headers,
      });
    const weatherCall = (id: string) => ({
      toolCalls: [{ id, name: 'get_weather', input: { city: 'Paris' } }],
    });

    it('no answer within localToolTimeoutMs: terminal result error_local_tool_timeout with an error, no further model turn, later posts 409', async () => {
      fixture.fake.enqueue(weatherCall('toolu_slow'), { text: ['never'] });
      const run = await fixture.startRun({
        systemPrompt: 's',
        prompt: 'p',
        tools: [WEATHER_TOOL],
        localToolTimeoutMs: SHORTEST_TOOL_TIMEOUT_MS,
      });
      await run.waitForType('local_tool_call');
      const calledAt = Date.now();
      // Ending at all, within the wait cap, tells this timeout from the 5-minute default.
      const frames = await run.ended;
      const waited = Date.now() - calledAt;
      assert.ok(waited >= SHORTEST_TOOL_TIMEOUT_MS - 200, `waited ${waited} ms`);
      assert.deepEqual(terminalsOf(types(frames)), ['result']);
      const result = frames.at(-1)?.data.data;
      assert.equal(result?.subtype, 'error_local_tool_timeout');
      assert.equal(typeof result?.error, 'string');
      assert.notEqual(result?.error, '');
      assert.equal(fixture.fake.requests.length, 1, 'the model was not called again');
      const late = await postToolResult(fixture, run.runId, { toolUseId: 'toolu_slow', result: 'finally' });
      assert.equal(late.status, 409);
      assert.equal(late.body.error, 'run_terminal');
      const replay = await readAll(fixture.streamUrl(run.runId), fixture.headers);
      assert.equal(ofType(replay, 'local_tool_result_in').length, 0, 'the late result was dropped');
    });

    it('the local tool wait defaults to 5 minutes (snapshot spec.effective.localToolTimeoutMs)', async () => {
      const { runId } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'p', tools: [WEATHER_TOOL] });
      const snapshot = await snapshotOf(fixture, runId);
      assert.equal(snapshot.status, 200);
      assert.equal(snapshot.body.spec.effective.localToolTimeoutMs, 300_000);
      const custom = await fixture.runToEnd({
        systemPrompt: 's',
        prompt: 'p',
        tools: [WEATHER_TOOL],
        localToolTimeoutMs: 1500,
      });
      assert.equal((await snapshotOf(fixture, custom.runId)).body.spec.effective.localToolTimeoutMs, 1500);
    });

    it('a read-only batch that times out after one answer still echoes the accepted answer before the terminal result', async () => {
      const readTool = { kind: 'local', name: 'read_doc', readOnly: true };
      fixture.fake.enqueue(
        {
          toolCalls: [
            { id: 'toolu_r1', name: 'read_doc', input: {} },
            { id: 'toolu_r2', name: 'read_doc', input: {} },
          ],
        },
        { text: ['never'] },
      );
      const run = await fixture.startRun({
        systemPrompt: 's',
        prompt: 'p',
        tools: [readTool],
        localToolTimeoutMs: SHORTEST_TOOL_TIMEOUT_MS,
      });
      await run.waitFor(() => ofType(run.frames, 'local_tool_call').length === 2);
      const accepted = await postToolResult(fixture, run.runId, { toolUseId: 'toolu_r1', result: 'doc one' });
      assert.equal(accepted.status, 200);
      const frames = await run.ended;
      assert.equal(frames.at(-1)?.data.data.subtype, 'error_local_tool_timeout');
      const echoes = ofType(frames, 'local_tool_result_in');
      assert.deepEqual(
        echoes.map((frame) => [frame.data.data.toolUseId, frame.data.data.output]),
        [['toolu_r1', 'doc one']],
        'local_tool_result_in is published for every posted (accepted) result',
      );
      assert.equal(fixture.fake.requests.length, 1);
    });

    it('cancel while waiting: the run keeps waiting, the answer is accepted and echoed, then exactly one cancelled and no new model turn', async () => {
      fixture.fake.enqueue(weatherCall('toolu_c'), { text: ['should not run'] });
      const run = await fixture.startRun({ systemPrompt: 's', prompt: 'p', tools: [WEATHER_TOOL] });
      await run.waitForType('local_tool_call');
      assert.equal((await cancel(run.runId)).status, 200);
      await sleep(300); // a negative check: a slower machine only makes it pass more easily
      assert.deepEqual(terminalsOf(types(run.frames)), [], 'no terminal event while the call is pending');
      const waiting = await snapshotOf(fixture, run.runId);
      assert.equal(waiting.body.endedAt, null);
      assert.equal(waiting.body.cancelRequested, true);

      const posted = await postToolResult(fixture, run.runId, { toolUseId: 'toolu_c', result: 'cloudy' });
      assert.equal(posted.status, 200);
      const frames = await run.ended;
      const echo = ofType(frames, 'local_tool_result_in');
      assert.deepEqual(
        echo.map((frame) => [frame.data.data.toolUseId, frame.data.data.output]),
        [['toolu_c', 'cloudy']],
      );
      assert.deepEqual(terminalsOf(types(frames)), ['cancelled']);
      assert.equal(types(frames).at(-1), 'cancelled');
      assert.ok(frames.indexOf(echo[0]!) < frames.length - 1, 'the echo precedes the terminal event');
      assert.equal(fixture.fake.requests.length, 1, 'no model turn after the cancel');
      assert.equal((await snapshotOf(fixture, run.runId)).body.status, 'cancelled');

      const again = await postToolResult(fixture, run.runId, { toolUseId: 'toolu_c', result: 'again' });
      assert.equal(again.status, 200, 'accepted and ignored after cancellation');
      const replay = await readAll(fixture.streamUrl(run.runId), fixture.headers);
      assert.deepEqual(types(replay), types(frames), 'nothing was added after the terminal event');
    });

    it('cancel while the first of two sequential calls waits: it is still answered, the second is never published, other posts are 200 and ignored', async () => {
      fixture.fake.enqueue(
        { toolCalls: [weatherCall('toolu_m1').toolCalls[0]!, weatherCall('toolu_m2').toolCalls[0]!] },
        { text: ['should not run'] },
      );
      const run = await fixture.startRun({ systemPrompt: 's', prompt: 'p', tools: [WEATHER_TOOL] });
      await run.waitForType('local_tool_call');
      assert.equal((await cancel(run.runId)).status, 200);

      for (const toolUseId of ['toolu_m2', 'toolu_unknown']) {
        const early = await postToolResult(fixture, run.runId, { toolUseId, result: 'x' });
        assert.equal(early.status, 200, `${toolUseId}: accepted after the cancel`);
        assert.equal(early.body.ignored, true);
      }
      const pending = await postToolResult(fixture, run.runId, { toolUseId: 'toolu_m1', result: 'sunny' });
      assert.equal(pending.status, 200);
      assert.equal(pending.body.ignored, undefined, 'the pending call still counts');

      const frames = await run.ended;
      assert.deepEqual(
        ofType(frames, 'local_tool_call').map((frame) => frame.data.data.toolUseId),
        ['toolu_m1'],
      );
      assert.deepEqual(
        ofType(frames, 'local_tool_result_in').map((frame) => frame.data.data.toolUseId),
        ['toolu_m1'],
      );
      assert.equal(types(frames).at(-1), 'cancelled');
      assert.equal(fixture.fake.requests.length, 1, 'no model turn after the cancel');
    });

    it('cancel while waiting with no answer: the pending call times out, then the run ends cancelled', async () => {
      fixture.fake.enqueue(weatherCall('toolu_ct'), { text: ['should not run'] });
      const run = await fixture.startRun({
        systemPrompt: 's',
        prompt: 'p',
        tools: [WEATHER_TOOL],
        localToolTimeoutMs: SHORTEST_TOOL_TIMEOUT_MS,
      });
      await run.waitForType('local_tool_call');
      assert.equal((await cancel(run.runId)).status, 200);
      const frames = await run.ended;
      assert.deepEqual(terminalsOf(types(frames)), ['cancelled']);
      assert.equal(fixture.fake.requests.length, 1);
    });

    it('budgets.maxToolTurns: 1: after one tool round the next request has tool choice none and the run ends with a result', async () => {
      // The model calls a tool whenever it may; with tool choice none a provider can only answer in text.
      fixture.fake.enqueue(weatherCall('toolu_t1'), { text: ['Final answer.'] });
      const run = await fixture.startRun({
        systemPrompt: 's',
        prompt: 'p',
        tools: [WEATHER_TOOL],
        budgets: { maxToolTurns: 1 },
      });
      await run.waitForType('local_tool_call');
      assert.equal(
        (await postToolResult(fixture, run.runId, { toolUseId: 'toolu_t1', result: 'sunny' })).status,
        200,
      );
      const frames = await run.ended;
      assert.deepEqual(terminalsOf(types(frames)), ['result']);
      assert.equal(frames.at(-1)?.data.data.subtype, 'success');
      assert.equal(frames.at(-1)?.data.data.text, 'Final answer.');
      assert.equal(ofType(frames, 'local_tool_call').length, 1);
      assert.equal(fixture.fake.requests.length, 2);
      assert.deepEqual(bodyOf(fixture.fake.requests[0]).tool_choice, { type: 'auto' });
      assert.deepEqual(bodyOf(fixture.fake.requests[1]).tool_choice, { type: 'none' });
      assert.equal(
        toolResultBlocks(fixture.fake.requests[1]).length,
        1,
        'the tool round still reached the model',
      );
    });

    it('a provider that calls a tool anyway on the tools-disabled turn: the calls are dropped and the run ends with its text', async () => {
      fixture.fake.enqueue(weatherCall('toolu_u1'), {
        text: ['Here is what I have.'],
        toolCalls: weatherCall('toolu_u2').toolCalls,
      });
      const run = await fixture.startRun({
        systemPrompt: 's',
        prompt: 'p',
        tools: [WEATHER_TOOL],
        budgets: { maxToolTurns: 1 },
      });
      await run.waitForType('local_tool_call');
      await postToolResult(fixture, run.runId, { toolUseId: 'toolu_u1', result: 'sunny' });
      const frames = await run.ended;
      assert.deepEqual(terminalsOf(types(frames)), ['result']);
      assert.equal(frames.at(-1)?.data.data.subtype, 'success');
      assert.equal(frames.at(-1)?.data.data.text, 'Here is what I have.');
      assert.equal(frames.at(-1)?.data.data.turns, 2);
      assert.deepEqual(
        ofType(frames, 'local_tool_call').map((frame) => frame.data.data.toolUseId),
        ['toolu_u1'],
      );
      const last = ofType(frames, 'assistant_message').at(-1)?.data.data;
      assert.equal(last?.text, 'Here is what I have.');
      assert.equal(last?.finishReason, 'tool_use');
      assert.equal(last?.toolCalls, undefined, 'calls that were not allowed are not reported as made');
    });

    it('budgets.maxToolTurns: 2: tool choice stays auto for two tool rounds, then none', async () => {
      fixture.fake.enqueue(weatherCall('toolu_a'), weatherCall('toolu_b'), { text: ['Enough.'] });
      const run = await fixture.startRun({
        systemPrompt: 's',
        prompt: 'p',
        tools: [WEATHER_TOOL],
        budgets: { maxToolTurns: 2 },
      });
      for (const id of ['toolu_a', 'toolu_b']) {
        await run.waitFor(
          (frame) => frame.data.type === 'local_tool_call' && frame.data.data.toolUseId === id,
        );
        assert.equal(
          (await postToolResult(fixture, run.runId, { toolUseId: id, result: 'sunny' })).status,
          200,
        );
      }
      const frames = await run.ended;
      assert.equal(frames.at(-1)?.data.data.subtype, 'success');
      assert.deepEqual(
        fixture.fake.requests.map((request) => bodyOf(request).tool_choice),
        [{ type: 'auto' }, { type: 'auto' }, { type: 'none' }],
      );
    });
  },
);
