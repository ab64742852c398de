import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { ScriptedTurn } from '../fakes/scripted-reply.ts';
import { ofType, types, type FakeApi } from '../support/run-fixture.ts';
import type { SseFrame } from '../support/sse-client.ts';
import { toolChoiceOf, toolResultsOf, userTextsOf } from '../support/wire-requests.ts';
import { startSessionFixture, type SessionFixture } from '../sessions/session-support.ts';

/**
 * `loopDetection` and `toolBudgets` over HTTP, on each wire protocol: the wiring (the settings of a
 * run and of a session reach the run, the controls' events reach the stream, the steering reaches
 * the provider). A fake provider plays a model that repeats itself; the server tool is the
 * `current_time` plugin. The rules themselves are tested on the turn loop, in
 * test/engine/control-rules/loop-and-budget.test.ts.
 */

const CLOCK = { kind: 'svc_plugin', name: 'current_time' };
/** A turn calling current_time for a zone (the same zone twice is the same call). */
const clockCall = (id: string, timeZone = 'UTC'): ScriptedTurn => ({
  toolCalls: [{ id, name: 'current_time', input: { timeZone } }],
});
const final = (text = 'Final answer.'): ScriptedTurn => ({ text: [text] });

const dataOf = (frames: readonly SseFrame[], type: string) =>
  ofType(frames, type).map((frame) => frame.data.data as Record<string, unknown>);
const toolUseIds = (frames: readonly SseFrame[], type: string) =>
  dataOf(frames, type).map((data) => data.toolUseId);

const API_CASES: readonly FakeApi[] = ['openai-chat', 'anthropic-messages'];

for (const api of API_CASES) {
  describe(`loopDetection and toolBudgets over ${api}`, { timeout: 90_000 }, () => {
    let fixture: SessionFixture;
    before(async () => {
      fixture = await startSessionFixture(api);
    });
    after(() => fixture.close());
    afterEach(() => fixture.cleanUp());

    it('loopDetection defaults: the 3rd identical batch is skipped with a soft loop_detected and a steering message; the 6th forces a tools-disabled final turn', async () => {
      fixture.fake.enqueue(
        ...['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((id) => clockCall(id)),
        final('Out of ideas.'),
      );
      const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'time?', tools: [CLOCK] });

      assert.equal(types(frames).at(-1), 'result');
      assert.equal(frames.at(-1)?.data.data.text, 'Out of ideas.');
      assert.deepEqual(dataOf(frames, 'loop_detected'), [
        { consecutiveCount: 3, hardCutoff: false, tools: ['current_time'] },
        { consecutiveCount: 6, hardCutoff: true, tools: ['current_time'] },
      ]);
      assert.deepEqual(toolUseIds(frames, 'tool_call'), ['c1', 'c2'], 'duplicate batches never execute');
      // The soft event follows the assistant_message of the turn it skipped.
      const sequence = types(frames).filter((type) => type !== 'assistant_delta');
      const soft = sequence.indexOf('loop_detected');
      assert.equal(sequence[soft - 1], 'assistant_message');
      assert.equal(
        sequence.slice(0, soft).filter((type) => type === 'assistant_message').length,
        3,
        'loop_detected comes with the 3rd turn',
      );

      const requests = fixture.fake.requests;
      assert.equal(requests.length, 7);
      const afterSoft = requests[3];
      assert.match(toolResultsOf(api, afterSoft).get('c3') ?? '', /already made this exact call/);
      assert.match(userTextsOf(afterSoft).at(-1) ?? '', /repeating the same tool calls/);
      assert.deepEqual(
        requests.map((request) => toolChoiceOf(api, request)),
        ['auto', 'auto', 'auto', 'auto', 'auto', 'auto', 'none'],
      );
      assert.match(toolResultsOf(api, requests[6]).get('c6') ?? '', /already made this exact call/);
      assert.match(userTextsOf(requests[6]).at(-1) ?? '', /give your final answer now/);
    });

    it('session inheritance: the session defaults apply to message runs; a message override applies to its run only', async () => {
      const sessionId = await fixture.newSession({
        systemPrompt: 's',
        tools: [CLOCK],
        loopDetection: { consecutiveThreshold: 2, hardCutoffThreshold: 3 },
        toolBudgets: { current_time: { maxCalls: 2 } },
      });

      // Inherited: attempt 2 is a soft-skipped repeat, attempt 3 is past the budget and the hard cutoff.
      fixture.fake.enqueue(clockCall('s1'), clockCall('s2'), clockCall('s3'), final('one'));
      const first = await fixture.sendMessage(sessionId, { prompt: 'time?' });
      assert.equal(types(first.frames).at(-1), 'result');
      assert.deepEqual(toolUseIds(first.frames, 'tool_call'), ['s1']);
      assert.deepEqual(dataOf(first.frames, 'loop_detected'), [
        { consecutiveCount: 2, hardCutoff: false, tools: ['current_time'] },
        { consecutiveCount: 3, hardCutoff: true, tools: ['current_time'] },
      ]);
      assert.deepEqual(dataOf(first.frames, 'tool_budget_exceeded'), [
        { tool: 'current_time', maxCalls: 2, callIndex: 3 },
      ]);

      // Overridden for this message only.
      fixture.fake.enqueue(clockCall('t1'), clockCall('t2'), clockCall('t3'), final('two'));
      const second = await fixture.sendMessage(sessionId, {
        prompt: 'again?',
        loopDetection: false,
        toolBudgets: { current_time: { maxCalls: 5 } },
      });
      assert.equal(types(second.frames).at(-1), 'result');
      assert.deepEqual(toolUseIds(second.frames, 'tool_call'), ['t1', 't2', 't3']);
      assert.deepEqual(dataOf(second.frames, 'loop_detected'), []);
      assert.deepEqual(dataOf(second.frames, 'tool_budget_exceeded'), []);

      // The session defaults are back in force.
      fixture.fake.enqueue(clockCall('u1'), clockCall('u2'), clockCall('u3', 'Asia/Tokyo'), final('three'));
      const third = await fixture.sendMessage(sessionId, { prompt: 'and now?' });
      assert.equal(types(third.frames).at(-1), 'result');
      assert.deepEqual(toolUseIds(third.frames, 'tool_call'), ['u1']);
      assert.deepEqual(dataOf(third.frames, 'loop_detected'), [
        { consecutiveCount: 2, hardCutoff: false, tools: ['current_time'] },
      ]);
      assert.deepEqual(dataOf(third.frames, 'tool_budget_exceeded'), [
        { tool: 'current_time', maxCalls: 2, callIndex: 3 },
      ]);
    });
  });
}
