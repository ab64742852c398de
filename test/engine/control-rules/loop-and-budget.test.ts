import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LocalToolRef, ToolRef } from '../../../src/domain/tool-ref.ts';
import type { ScriptedTurn } from '../../fakes/scripted-reply.ts';
import {
  ofType,
  within,
  type LoggedEvent,
  type RunOptions,
  type RunUnderTest,
} from '../../support/turn-loop-harness.ts';
import { toolChoiceOf, toolResultsOf } from '../../support/wire-requests.ts';
import { WIRES, wireRig } from './wire-rig.ts';

/**
 * The rules of `loopDetection` and `toolBudgets`, on the real turn loop with the controls the spec
 * asks for (see turn-loop-harness.ts), on each wire protocol: a fake provider plays a model that
 * repeats itself, and the test reads the run's log and what the provider was sent next. The server
 * tool is the `current_time` plugin. The HTTP suite (test/runs/loop-and-budget-controls.test.ts)
 * keeps the wiring: the settings reach the run, its events the stream.
 */

const CLOCK: ToolRef = { kind: 'svc_plugin', name: 'current_time' };
const LOOKUP: LocalToolRef = {
  kind: 'local',
  name: 'lookup',
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
};
const RECALL: LocalToolRef = {
  kind: 'local',
  name: 'recall',
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
};

/** A turn calling current_time for a zone (the same zone twice is the same call). */
const clockCall = (id: string, timeZone = 'UTC'): ScriptedTurn => ({
  toolCalls: [{ id, name: 'current_time', input: { timeZone } }],
});
const final = (text = 'Final answer.'): ScriptedTurn => ({ text: [text] });

const loopDetected = (events: readonly LoggedEvent[]) =>
  ofType(events, 'loop_detected').map((event) => event.data);
const budgetExceeded = (events: readonly LoggedEvent[]) =>
  ofType(events, 'tool_budget_exceeded').map((event) => event.data);
const toolUseIds = (events: readonly LoggedEvent[], type: 'tool_call' | 'tool_result' | 'local_tool_call') =>
  ofType(events, type).map((event) => event.data.toolUseId);

for (const api of WIRES) {
  describe(`loopDetection and toolBudgets rules over ${api}`, { timeout: 90_000 }, () => {
    const rig = wireRig(api);

    const start = (options: Omit<RunOptions, 'model'>) =>
      rig.harness().start({ ...options, model: rig.model() });

    async function ended(run: RunUnderTest): Promise<LoggedEvent[]> {
      const { terminal, events } = await within(run.ended, `the end of run ${run.runId}`);
      assert.equal(terminal.type, 'result');
      return events;
    }

    /** Answers the run's local calls with these ids as each comes; resolves with the log to the end. */
    async function answering(run: RunUnderTest, ids: readonly string[]): Promise<LoggedEvent[]> {
      for (const id of ids) {
        await run.waitFor('local_tool_call', (event) => event.data.toolUseId === id);
        assert.equal(await run.answer(id, { result: `answer ${id}`, files: [] }), 'accepted');
      }
      return ended(run);
    }

    it('loopDetection false: identical batches all run, no loop_detected', async () => {
      rig.fake().enqueue(...['d1', 'd2', 'd3', 'd4'].map((id) => clockCall(id)), final());
      const events = await ended(await start({ prompt: 'time?', tools: [CLOCK], loopDetection: false }));
      assert.deepEqual(loopDetected(events), []);
      assert.deepEqual(toolUseIds(events, 'tool_call'), ['d1', 'd2', 'd3', 'd4']);
      assert.ok(rig.fake().requests.every((request) => toolChoiceOf(api, request) === 'auto'));
    });

    it('loopDetection thresholds: consecutiveThreshold 2 and hardCutoffThreshold 3', async () => {
      rig.fake().enqueue(clockCall('e1'), clockCall('e2'), clockCall('e3'), final());
      const events = await ended(
        await start({
          prompt: 'time?',
          tools: [CLOCK],
          loopDetection: { consecutiveThreshold: 2, hardCutoffThreshold: 3 },
        }),
      );
      assert.deepEqual(loopDetected(events), [
        { consecutiveCount: 2, hardCutoff: false, tools: ['current_time'] },
        { consecutiveCount: 3, hardCutoff: true, tools: ['current_time'] },
      ]);
      assert.deepEqual(toolUseIds(events, 'tool_call'), ['e1']);
      assert.deepEqual(
        rig.fake().requests.map((request) => toolChoiceOf(api, request)),
        ['auto', 'auto', 'auto', 'none'],
      );
    });

    it('toolBudgets: the attempt past maxCalls gets the budget-spent result and tool_budget_exceeded, and never runs', async () => {
      rig.fake().enqueue(clockCall('f1', 'Asia/Tokyo'), clockCall('f2', 'Europe/Paris'), final());
      const events = await ended(
        await start({ prompt: 'time?', tools: [CLOCK], toolBudgets: { current_time: { maxCalls: 1 } } }),
      );
      assert.deepEqual(budgetExceeded(events), [{ tool: 'current_time', maxCalls: 1, callIndex: 2 }]);
      assert.deepEqual(toolUseIds(events, 'tool_call'), ['f1']);
      assert.deepEqual(toolUseIds(events, 'tool_result'), ['f1']);
      assert.match(
        toolResultsOf(api, rig.fake().requests[2]).get('f2') ?? '',
        /budget for current_time \(1 call\) is spent/,
      );
    });

    it('toolBudgets maxCalls 0 disables a local tool: no local_tool_call, the model gets the budget-spent result', async () => {
      rig
        .fake()
        .enqueue({ toolCalls: [{ id: 'g1', name: 'lookup', input: { q: 'x' } }] }, final('Without lookup.'));
      const run = await start({
        prompt: 'look it up',
        tools: [LOOKUP],
        toolBudgets: { lookup: { maxCalls: 0 } },
      });
      const events = await ended(run);
      const { terminal } = await run.ended;
      assert.equal(terminal.type === 'result' && terminal.data.text, 'Without lookup.');
      assert.deepEqual(ofType(events, 'local_tool_call'), []);
      assert.deepEqual(budgetExceeded(events), [{ tool: 'lookup', maxCalls: 0, callIndex: 1 }]);
      assert.match(toolResultsOf(api, rig.fake().requests[1]).get('g1') ?? '', /budget for lookup/);
    });

    const recallTurns = () =>
      ['h1', 'h2', 'h3', 'h4', 'h5'].map((id, index): ScriptedTurn => ({
        toolCalls: [{ id, name: 'recall', input: { q: `q${index}` } }],
      }));

    it('toolBudgets omitted: the default cap applies (recall: the 5th call is intercepted)', async () => {
      rig.fake().enqueue(...recallTurns(), final());
      const run = await start({ prompt: 'remember?', tools: [RECALL] });
      const events = await answering(run, ['h1', 'h2', 'h3', 'h4']);
      assert.deepEqual(toolUseIds(events, 'local_tool_call'), ['h1', 'h2', 'h3', 'h4']);
      assert.deepEqual(budgetExceeded(events), [{ tool: 'recall', maxCalls: 4, callIndex: 5 }]);
    });

    it('toolBudgets {}: no default cap (recall is called 5 times)', async () => {
      rig.fake().enqueue(...recallTurns(), final());
      const run = await start({ prompt: 'remember?', tools: [RECALL], toolBudgets: {} });
      const events = await answering(run, ['h1', 'h2', 'h3', 'h4', 'h5']);
      assert.deepEqual(toolUseIds(events, 'local_tool_call'), ['h1', 'h2', 'h3', 'h4', 'h5']);
      assert.deepEqual(budgetExceeded(events), []);
    });
  });
}
