import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LocalToolRef } from '../../../src/domain/tool-ref.ts';
import type { RecordedRequest } from '../../fakes/scripted-reply.ts';
import {
  ofType,
  within,
  withoutDeltas,
  type LoggedEvent,
  type RunOptions,
  type RunUnderTest,
} from '../../support/turn-loop-harness.ts';
import { WIRES, wireRig } from './wire-rig.ts';

/**
 * The rules of the `plan` control on the real turn loop with the controls the spec asks for (see
 * turn-loop-harness.ts), on each wire protocol: mode required end to end, a plan-only run with
 * steps, and plan-only beside `outputSchema`. Runs whose planner drafts the plan, and the wiring
 * (what the provider is offered, the stream, the snapshot, sessions), stay over HTTP in
 * test/runs/task-plan.test.ts.
 */

const LOOKUP: LocalToolRef = {
  kind: 'local',
  name: 'lookup',
  description: 'Looks a word up.',
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
};

const ZERO_TOKENS = { inputTokens: 0, cachedTokens: 0, reasoningTokens: 0, outputTokens: 0 };

const OUTPUT_SCHEMA = {
  name: 'answer',
  schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
};

/** What the model is told before its first turn in mode required (in the request's last messages). */
const REQUIRED_NOTICE = '[task plan] This run requires a task plan';

/** Whether the request carries the text anywhere (a message, a tool result, a description). */
function carries(request: RecordedRequest | undefined, text: string): boolean {
  return (request?.rawBody ?? '').includes(JSON.stringify(text).slice(1, -1));
}

const planEvents = (events: readonly LoggedEvent[]) => ofType(events, 'task_plan').map((event) => event.data);

for (const api of WIRES) {
  describe(`the plan control's rules on the turn loop (${api})`, { timeout: 60_000 }, () => {
    const rig = wireRig(api);

    const start = (options: Omit<RunOptions, 'model'>): Promise<RunUnderTest> =>
      rig.harness().start({ ...options, model: rig.model() });
    const ended = (run: RunUnderTest) => within(run.ended, `the end of run ${run.runId}`);

    it('mode required end to end: a declared tool waits for the plan, then runs; a premature final answer is sent back until the step is done', async () => {
      const lookup = (id: string) => ({ toolCalls: [{ id, name: 'lookup', input: { q: 'a' } }] });
      const plan = (id: string, status: string, stepId?: string) => ({
        toolCalls: [
          {
            id,
            name: 'update_task_plan',
            input: { steps: [{ ...(stepId && { id: stepId }), title: 'Look up a', status }] },
          },
        ],
      });
      rig
        .fake()
        .enqueue(
          lookup('call_lookup_1'),
          plan('call_plan_1', 'in_progress'),
          lookup('call_lookup_2'),
          { text: ['Done.'] },
          plan('call_plan_2', 'done', 's1'),
          { text: ['Done.'] },
        );
      const run = await start({ prompt: 'find a', tools: [LOOKUP], plan: 'required' });
      const call = await run.waitFor('local_tool_call');
      assert.equal(
        call.data.toolUseId,
        'call_lookup_2',
        'the call made before the plan never reached the client',
      );
      assert.equal(await run.answer('call_lookup_2', { result: 'a letter', files: [] }), 'accepted');
      const { terminal, events } = await ended(run);

      assert.deepEqual(withoutDeltas(events), [
        'assistant_message',
        'assistant_message',
        'task_plan',
        'assistant_message',
        'local_tool_call',
        'local_tool_result_in',
        'assistant_message',
        'assistant_message',
        'task_plan',
        'assistant_message',
        'result',
      ]);
      assert.equal(terminal.type === 'result' && terminal.data.text, 'Done.');
      assert.deepEqual(
        planEvents(events).map((event) => [event.revision, event.mode, event.transition]),
        [
          [1, 'required', { kind: 'created', stepId: null }],
          [2, 'required', { kind: 'step_done', stepId: 's1' }],
        ],
      );

      const requests = rig.fake().requests;
      assert.equal(requests.length, 6);
      assert.ok(carries(requests[0], REQUIRED_NOTICE), 'told before the first turn');
      assert.ok(carries(requests[1], 'Not run: this run requires a task plan first'));
      assert.ok(carries(requests[4], 'still has open steps:\ns1 [in_progress] Look up a'));
      assert.ok(carries(requests[5], 'Task plan updated (revision 2).\ns1 [done] Look up a'));
    });

    it('planOnly with steps: no provider request at all; the result carries the plan, its numbered text, turns 0 and zero tokens, after one seeded task_plan', async () => {
      const { terminal, events } = await ended(
        await start({
          prompt: 'trip',
          tools: [LOOKUP],
          plan: { planOnly: true, brief: 'Plan a trip', steps: ['Book flight', ' ', 'Book hotel'] },
        }),
      );

      assert.equal(rig.fake().requests.length, 0);
      assert.deepEqual(withoutDeltas(events), ['task_plan', 'result']);
      const [event] = planEvents(events);
      assert.deepEqual([event?.source, event?.transition], ['seed', { kind: 'seeded', stepId: null }]);
      assert.equal(terminal.type, 'result');
      if (terminal.type !== 'result') return;
      const result = terminal.data;
      assert.equal(result.subtype, 'success');
      assert.deepEqual(result.plan, {
        brief: 'Plan a trip',
        steps: [
          { title: 'Book flight', status: 'pending' },
          { title: 'Book hotel', status: 'pending' },
        ],
      });
      assert.equal(result.text, '1. Book flight\n2. Book hotel');
      assert.equal(result.turns, 0);
      assert.deepEqual(result.tokens, ZERO_TOKENS);
      assert.equal(typeof result.model.id, 'string');
    });

    it('strict outputSchema with planOnly fails structured_output_not_supported, without any provider request', async () => {
      const { terminal, events } = await ended(
        await start({
          prompt: 'hi',
          outputSchema: { ...OUTPUT_SCHEMA, enforcement: 'strict' },
          plan: { planOnly: true },
        }),
      );
      assert.deepEqual(withoutDeltas(events), ['error']);
      assert.equal(terminal.type === 'error' && terminal.data.errorClass, 'structured_output_not_supported');
      assert.equal(rig.fake().requests.length, 0);
    });

    it('best_effort outputSchema with planOnly ends with the plan', async () => {
      const { terminal } = await ended(
        await start({
          prompt: 'hi',
          outputSchema: { ...OUTPUT_SCHEMA, enforcement: 'best_effort' },
          plan: { planOnly: true, steps: ['only step'] },
        }),
      );
      assert.equal(terminal.type === 'result' && terminal.data.subtype, 'success');
      assert.equal(terminal.type === 'result' && terminal.data.text, '1. only step');
      assert.equal(rig.fake().requests.length, 0);
    });
  });
}
