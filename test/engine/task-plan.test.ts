import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PlanSetting } from '../../src/domain/run-controls.ts';
import type { RunEvent, TaskPlanData } from '../../src/domain/run-events.ts';
import type { LocalToolRef } from '../../src/domain/tool-ref.ts';
import {
  MAX_FINISH_REJECTIONS,
  TaskPlanControl,
  taskPlanControl,
  type TaskPlanState,
} from '../../src/engine/controls/task-plan/task-plan-control.ts';
import { ControlPipeline } from '../../src/engine/loop/control-pipeline.ts';
import type { HostTool, RunControl, ToolCallContext, ToolOutput } from '../../src/engine/loop/run-control.ts';
import { zeroUsage, type TokenUsage } from '../../src/domain/usage.ts';
import { NO_PLAN_NEEDED } from '../../src/engine/controls/task-plan/plan-only.ts';
import {
  ModelTurnError,
  type DraftedPlan,
  type PlanningRequest,
  type RunTool,
  type TaskPlanner,
} from '../../src/engine/ports.ts';
import {
  ofType,
  openLoopHarness,
  withoutDeltas,
  within,
  type LoopHarness,
} from '../support/turn-loop-harness.ts';

/**
 * The `plan` run control (task plans): the control alone at its decision points, then on the real
 * turn loop with the mock model (see turn-loop-harness.ts), which calls a tool offered to it on
 * `call <tool> {json}` in the last user message and reports tool results.
 */

const TEST_TIMEOUT = { timeout: 60_000 };

function controlFor(setting: PlanSetting): TaskPlanControl {
  const control = taskPlanControl(setting);
  if (!(control instanceof TaskPlanControl)) throw new Error(`no control for ${JSON.stringify(setting)}`);
  return control;
}

function planTool(control: RunControl): HostTool {
  const tool = control.hostTools?.find((candidate) => candidate.name === 'update_task_plan');
  if (!tool) throw new Error('the control serves no update_task_plan');
  return tool;
}

/** Calls update_task_plan as the host executor does; returns what the model got and the events. */
function update(
  control: RunControl,
  args: Record<string, unknown>,
): { output: ToolOutput; events: TaskPlanData[] } {
  const events: RunEvent[] = [];
  const output = planTool(control).execute(args, { turn: 0, emit: (event) => void events.push(event) });
  return { output, events: planEvents(events) };
}

function planEvents(events: readonly RunEvent[]): TaskPlanData[] {
  return events.flatMap((event) => (event.type === 'task_plan' ? [event.data] : []));
}

const DECLARED: RunTool = {
  kind: 'local',
  name: 'lookup',
  description: 'Looks a word up.',
  inputSchema: { type: 'object' },
  readOnly: false,
  retain: false,
  callExtras: {},
};

function callOf(
  control: RunControl,
  name: string,
  round: Array<{ name: string; input: unknown }> = [{ name, input: {} }],
): ToolCallContext {
  const calls = round.map((entry, index) => ({ id: `call_${index}`, ...entry }));
  const call = calls.find((entry) => entry.name === name);
  if (!call) throw new Error(`no ${name} call in the round`);
  const tool = name === DECLARED.name ? DECLARED : control.hostTools?.find((host) => host.name === name);
  return { turn: 0, call, round: calls, tool };
}

const final = (turn = 1) => ({
  turn,
  text: 'All done.',
  finishReason: 'end_turn',
  toolsCallable: true,
  emit: () => {},
});

const TWO_STEPS = {
  brief: 'Ship the report',
  steps: [
    { title: 'Gather figures', status: 'in_progress' },
    { title: 'Write summary', status: 'pending' },
  ],
};

describe('the plan control at its decision points', () => {
  it('plan forms: omitted, false and mode off make no control; true, auto, required and objects make one', () => {
    for (const setting of [
      undefined,
      false,
      { mode: 'off' as const },
      { mode: 'off' as const, steps: ['a'] },
    ]) {
      assert.equal(taskPlanControl(setting), undefined, JSON.stringify(setting));
    }
    const settings: PlanSetting[] = [true, 'auto', 'required', { steps: ['a'] }, { mode: 'required' }];
    for (const setting of settings) {
      assert.equal(taskPlanControl(setting)?.name, 'task_plan', JSON.stringify(setting));
    }
  });

  it('update_task_plan is offered on every turn, in every mode', () => {
    const settings: PlanSetting[] = [true, 'required', { steps: ['a'] }];
    for (const setting of settings) {
      const control = controlFor(setting);
      for (const turn of [0, 1, 5]) {
        const adjustments = control.beforeTurn({ turn, emit: () => {} });
        assert.ok(adjustments && 'offerHostTools' in adjustments);
        assert.deepEqual(adjustments.offerHostTools, ['update_task_plan'], `turn ${turn}`);
      }
    }
  });

  it('plan creation emits one task_plan v2 event at revision 1, with brief and steps mirrored at the top level', () => {
    const control = controlFor(true);
    const { output, events } = update(control, TWO_STEPS);

    assert.equal(events.length, 1);
    const [created] = events;
    const steps = [
      { id: 's1', title: 'Gather figures', status: 'in_progress' },
      { id: 's2', title: 'Write summary', status: 'pending' },
    ];
    assert.match(created?.planId ?? '', /^plan_[0-9a-f]+$/);
    assert.deepEqual(created, {
      v: 2,
      planId: created?.planId,
      revision: 1,
      mode: 'auto',
      source: 'agent',
      transition: { kind: 'created', stepId: null },
      transitionIndex: 0,
      transitionCount: 1,
      brief: 'Ship the report',
      steps,
      plan: { v: 2, planId: created?.planId, revision: 1, mode: 'auto', brief: 'Ship the report', steps },
    });
    assert.deepEqual(output, {
      type: 'text',
      value:
        'Task plan updated (revision 1).\nBrief: Ship the report\n' +
        's1 [in_progress] Gather figures\ns2 [pending] Write summary',
    });
  });

  it('an update bumps the revision and emits one event per transition, in order, all with the same snapshot', () => {
    const control = controlFor(true);
    const [created] = update(control, TWO_STEPS).events;
    const { events } = update(control, {
      steps: [
        { id: 's1', title: 'Gather figures', status: 'done' },
        { title: 'write summary', status: 'in_progress' }, // matched by title, case aside
        { title: 'Send it', status: 'pending' },
      ],
    });

    assert.deepEqual(
      events.map((event) => [event.transition, event.transitionIndex, event.transitionCount]),
      [
        [{ kind: 'step_done', stepId: 's1' }, 0, 4],
        [{ kind: 'step_renamed', stepId: 's2' }, 1, 4],
        [{ kind: 'step_in_progress', stepId: 's2' }, 2, 4],
        [{ kind: 'step_added', stepId: 's3' }, 3, 4],
      ],
    );
    const steps = [
      { id: 's1', title: 'Gather figures', status: 'done' },
      { id: 's2', title: 'write summary', status: 'in_progress' },
      { id: 's3', title: 'Send it', status: 'pending' },
    ];
    for (const event of events) {
      assert.equal(event.planId, created?.planId, 'one plan for the run');
      assert.equal(event.revision, 2);
      assert.equal(event.brief, 'Ship the report', 'a brief left out stays');
      assert.deepEqual(event.steps, steps);
      assert.deepEqual(event.plan, {
        v: 2,
        planId: created?.planId,
        revision: 2,
        mode: 'auto',
        brief: 'Ship the report',
        steps,
      });
    }
  });

  it('steps left out are removed and their ids never reused; an update that changes nothing keeps the revision and emits nothing', () => {
    const control = controlFor(true);
    update(control, TWO_STEPS);
    const removed = update(control, {
      steps: [{ id: 's2', title: 'Write summary', status: 'pending' }],
    }).events;
    assert.deepEqual(
      removed.map((event) => event.transition),
      [{ kind: 'step_removed', stepId: 's1' }],
    );
    const added = update(control, {
      steps: [
        { title: 'Check sources', status: 'pending' },
        { id: 's2', title: 'Write summary', status: 'pending' },
      ],
    }).events;
    assert.deepEqual(
      added.map((event) => event.transition),
      [{ kind: 'step_added', stepId: 's3' }],
      'an unmoved step keeps its place relative to the others: no reordering',
    );
    assert.equal(added[0]?.revision, 3);

    const same = update(control, {
      steps: [
        { id: 's3', title: 'Check sources', status: 'pending' },
        { id: 's2', title: 'Write summary', status: 'pending' },
      ],
    });
    assert.deepEqual(same.events, []);
    assert.match(same.output.type === 'text' ? same.output.value : '', /^Task plan unchanged \(revision 3\)/);

    const swapped = update(control, {
      steps: [
        { id: 's2', title: 'Write summary', status: 'pending' },
        { id: 's3', title: 'Check sources', status: 'pending' },
      ],
    }).events;
    assert.deepEqual(
      swapped.map((event) => [event.transition, event.revision]),
      [[{ kind: 'steps_reordered', stepId: null }, 4]],
    );
  });

  it('update_task_plan clamps the brief to 300 characters, the steps to 100 and each title to 500, and refuses a plan without steps', () => {
    const control = controlFor(true);
    const steps = Array.from({ length: 120 }, (_, index) => ({
      title: `step ${index} ${'x'.repeat(600)}`,
      status: 'pending',
    }));
    const [created] = update(control, { brief: 'b'.repeat(400), steps }).events;
    assert.equal(created?.brief.length, 300);
    assert.equal(created?.steps.length, 100);
    assert.ok(created?.steps.every((step) => step.title.length === 500));

    const fresh = controlFor(true);
    const refused = update(fresh, { steps: [{ title: '   ', status: 'done' }] });
    assert.equal(refused.output.type, 'error-text');
    assert.deepEqual(refused.events, []);
  });

  it('mode required: a declared tool is intercepted until a plan exists; host tools are not; after the plan, declared tools pass', () => {
    const control = controlFor('required');
    const intercepted = control.beforeToolCall(callOf(control, 'lookup'));
    assert.ok(intercepted, 'intercepted before a plan');
    assert.equal(intercepted.output.type, 'error-text');
    assert.match(
      intercepted.output.type === 'error-text' ? intercepted.output.value : '',
      /update_task_plan/,
    );
    assert.equal(intercepted.event, undefined, 'no event: the interception is the model’s business');
    assert.equal(control.beforeToolCall(callOf(control, 'update_task_plan')), undefined);

    update(control, TWO_STEPS);
    assert.equal(control.beforeToolCall(callOf(control, 'lookup')), undefined, 'passes once planned');
  });

  it('mode required: a declared call after an update_task_plan that gives steps, in the same round, passes; one before it does not', () => {
    const control = controlFor('required');
    const planCall = { name: 'update_task_plan', input: TWO_STEPS };
    const lookupCall = { name: 'lookup', input: {} };
    assert.equal(control.beforeToolCall(callOf(control, 'lookup', [planCall, lookupCall])), undefined);
    assert.ok(control.beforeToolCall(callOf(control, 'lookup', [lookupCall, planCall])));
    const emptyPlan = { name: 'update_task_plan', input: { steps: [] } };
    assert.ok(control.beforeToolCall(callOf(control, 'lookup', [emptyPlan, lookupCall])));
  });

  it('mode auto never intercepts a call nor refuses a final answer', () => {
    const control = controlFor(true);
    assert.equal(control.beforeToolCall(callOf(control, 'lookup')), undefined);
    update(control, TWO_STEPS);
    assert.equal(control.beforeFinish(final()), 'accept');
  });

  it('mode required: a final answer while steps are open is sent back with the open steps listed, at most twice per run', () => {
    const control = controlFor('required');
    assert.equal(control.beforeFinish(final()), 'accept', 'no plan: nothing to finish');
    update(control, {
      steps: [
        { title: 'Gather figures', status: 'done' },
        { title: 'Write summary', status: 'blocked' },
        { title: 'Proofread', status: 'skipped' },
      ],
    });
    const verdicts = Array.from({ length: MAX_FINISH_REJECTIONS + 1 }, (_, turn) =>
      control.beforeFinish(final(turn)),
    );
    assert.equal(MAX_FINISH_REJECTIONS, 2);
    const [first, second, third] = verdicts;
    assert.ok(first && first !== 'accept' && second && second !== 'accept');
    assert.deepEqual(first.continueWith, [
      {
        role: 'user',
        content:
          '[task plan] Your task plan still has open steps:\ns2 [blocked] Write summary\n' +
          'Work through them, or call update_task_plan to mark them done or skipped, then give your final answer.',
      },
    ]);
    assert.equal(third, 'accept', 'the bound reached, the answer stands');
  });

  it('mode required: a final answer with every step done or skipped is accepted', () => {
    const control = controlFor('required');
    update(control, {
      steps: [
        { title: 'a', status: 'done' },
        { title: 'b', status: 'skipped' },
      ],
    });
    assert.equal(control.beforeFinish(final()), 'accept');
  });

  it('a seeded plan exists from the start: its task_plan event (kind seeded, source seed) goes out before the first turn, once, with the checklist for the model', () => {
    const control = controlFor({ mode: 'required', brief: 'Audit', steps: ['Read logs', 'File issues'] });
    assert.equal(control.beforeToolCall(callOf(control, 'lookup')), undefined, 'the plan already exists');

    const emitted: RunEvent[] = [];
    const first = control.beforeTurn({ turn: 0, emit: (event) => void emitted.push(event) });
    const steps = [
      { id: 's1', title: 'Read logs', status: 'pending' },
      { id: 's2', title: 'File issues', status: 'pending' },
    ];
    const [seeded] = planEvents(emitted);
    assert.deepEqual(seeded, {
      v: 2,
      planId: seeded?.planId,
      revision: 1,
      mode: 'required',
      source: 'seed',
      transition: { kind: 'seeded', stepId: null },
      transitionIndex: 0,
      transitionCount: 1,
      brief: 'Audit',
      steps,
      plan: { v: 2, planId: seeded?.planId, revision: 1, mode: 'required', brief: 'Audit', steps },
    });
    assert.ok(first && 'messages' in first);
    assert.match(
      String(first.messages?.[0]?.content),
      /Brief: Audit\ns1 \[pending\] Read logs\ns2 \[pending\] File issues/,
    );

    const second = control.beforeTurn({ turn: 1, emit: (event) => void emitted.push(event) });
    assert.equal(emitted.length, 1, 'announced once');
    assert.deepEqual(second, { offerHostTools: ['update_task_plan'] });

    const [next] = update(control, {
      steps: [
        { id: 's1', title: 'Read logs', status: 'in_progress' },
        { id: 's2', title: 'File issues', status: 'pending' },
      ],
    }).events;
    assert.deepEqual([next?.planId, next?.revision, next?.source], [seeded?.planId, 2, 'agent']);
  });

  it('snapshot and restore keep the planId, the revision and the rejections: a takeover continues the same plan', () => {
    const before = controlFor('required');
    const [created] = update(before, TWO_STEPS).events;
    void before.beforeTurn({ turn: 0, emit: () => {} });
    assert.notEqual(before.beforeFinish(final()), 'accept');
    const state = JSON.parse(JSON.stringify(before.snapshot())) as TaskPlanState;

    const after = controlFor('required');
    after.restore(state);
    assert.deepEqual(after.snapshot(), state);
    const [next] = update(after, {
      steps: [
        { id: 's1', title: 'Gather figures', status: 'done' },
        { id: 's2', title: 'Write summary', status: 'pending' },
      ],
    }).events;
    assert.equal(next?.planId, created?.planId);
    assert.equal(next?.revision, 2);
    assert.deepEqual(after.beforeTurn({ turn: 3, emit: () => assert.fail('no second notice') }), {
      offerHostTools: ['update_task_plan'],
    });
    assert.notEqual(after.beforeFinish(final()), 'accept', 'the second of two rejections');
    assert.equal(after.beforeFinish(final()), 'accept');
  });
});

const LOOKUP: LocalToolRef = {
  kind: 'local',
  name: 'lookup',
  description: 'Looks a word up.',
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
};

/** Says the turn's line as the last user message, so the mock model acts on it (after the plan's notices). */
function script(lines: Record<number, string>): RunControl {
  return {
    name: 'script',
    beforeTurn: ({ turn }) => {
      const line = lines[turn];
      return line === undefined ? undefined : { messages: [{ role: 'user', content: line }] };
    },
  };
}

const planCall = (steps: Array<Record<string, string>>) =>
  `call update_task_plan ${JSON.stringify({ steps })}`;

async function withHarness(test: (harness: LoopHarness) => Promise<void>): Promise<void> {
  const harness = await openLoopHarness();
  try {
    await test(harness);
    assert.deepEqual(harness.errorLogs, [], 'no run stopped unexpectedly');
  } finally {
    await harness.close();
  }
}

describe('the plan control on the turn loop (real loop, store, bus and mock model)', () => {
  it(
    'plan true: update_task_plan is offered every turn, the agent’s call emits task_plan after its assistant_message, never a local_tool_call, and the checklist reaches the next turn',
    TEST_TIMEOUT,
    () =>
      withHarness(async (harness) => {
        const prompt = planCall([{ title: 'Look up', status: 'in_progress' }]);
        const run = await harness.start({ prompt, tools: [LOOKUP] }, new ControlPipeline([controlFor(true)]));
        const { terminal, events } = await within(run.ended, 'the end of the run');

        assert.equal(terminal.type, 'result');
        const checklist = 'Task plan updated (revision 1).\ns1 [in_progress] Look up';
        assert.equal(
          terminal.type === 'result' && terminal.data.text,
          `Tool update_task_plan returned: ${checklist}`,
        );
        assert.deepEqual(
          run.calls.map((call) => call.tools?.map((tool) => tool.name)),
          [
            ['lookup', 'update_task_plan'],
            ['lookup', 'update_task_plan'],
          ],
        );
        assert.deepEqual(withoutDeltas(events), [
          'assistant_message',
          'task_plan',
          'assistant_message',
          'result',
        ]);
        const [plan] = ofType(events, 'task_plan');
        assert.equal(plan?.data.revision, 1);
        assert.deepEqual(plan?.data.transition, { kind: 'created', stepId: null });
        const callId = ofType(events, 'assistant_message')[0]?.data.toolCalls?.[0]?.id ?? '';
        assert.equal(
          await harness.repos.toolCalls.findOne(run.runId, callId),
          undefined,
          'never a client call',
        );

        // The checkpoint of the tool round keeps the control's state under its name.
        const checkpoint = await harness.repos.checkpoints.load<{ controls?: Record<string, TaskPlanState> }>(
          run.runId,
        );
        assert.equal(checkpoint?.state.controls?.task_plan?.planId, plan?.data.planId);
      }),
  );

  it(
    'mode required end to end: a declared tool before the plan gets the plan-first result, a plan and a call in one round both run, a premature answer is sent back, and the plan’s updates follow',
    TEST_TIMEOUT,
    () =>
      withHarness(async (harness) => {
        const pipeline = new ControlPipeline([
          controlFor('required'),
          script({
            0: 'call lookup {"q":"a"}',
            1: `${planCall([{ title: 'Look up a', status: 'in_progress' }])} call lookup {"q":"a"}`,
            2: 'all done',
            3: planCall([{ id: 's1', title: 'Look up a', status: 'done' }]),
            4: 'finished',
          }),
        ]);
        const run = await harness.start({ prompt: 'find a', tools: [LOOKUP] }, pipeline);
        const published = await run.waitFor('local_tool_call');
        assert.equal(
          await run.answer(published.data.toolUseId, { result: 'a is a letter', files: [] }),
          'accepted',
        );
        const { terminal, events } = await within(run.ended, 'the end of the run');

        assert.equal(terminal.type === 'result' && terminal.data.text, 'You said: finished');
        assert.deepEqual(withoutDeltas(events), [
          'assistant_message', // lookup, intercepted: no local_tool_call
          'assistant_message', // update_task_plan + lookup
          'task_plan',
          'local_tool_call',
          'local_tool_result_in',
          'assistant_message', // 'all done', sent back
          'assistant_message', // update_task_plan: s1 done
          'task_plan',
          'assistant_message',
          'result',
        ]);
        assert.equal(ofType(events, 'local_tool_call').length, 1);
        assert.deepEqual(
          ofType(events, 'task_plan').map((event) => [
            event.data.revision,
            event.data.transition,
            event.data.mode,
          ]),
          [
            [1, { kind: 'created', stepId: null }, 'required'],
            [2, { kind: 'step_done', stepId: 's1' }, 'required'],
          ],
        );
        const first = run.calls[0]?.messages ?? [];
        assert.match(String(first[1]?.content), /requires a task plan/, 'told before the first turn');
        const interceptedResult = run.calls[1]?.messages.find((message) => message.role === 'tool');
        assert.match(JSON.stringify(interceptedResult), /Not run: this run requires a task plan first/);
        assert.match(
          JSON.stringify(run.calls[3]?.messages.at(-2)),
          /still has open steps:\\ns1 \[in_progress\] Look up a/,
        );
      }),
  );

  it(
    'mode required: a final answer with open steps is sent back at most twice, then the run ends with it',
    TEST_TIMEOUT,
    () =>
      withHarness(async (harness) => {
        const pipeline = new ControlPipeline([
          controlFor('required'),
          script({
            0: planCall([{ title: 'Never done', status: 'pending' }]),
            1: 'done',
            2: 'done',
            3: 'done',
          }),
        ]);
        const run = await harness.start({ prompt: 'go' }, pipeline);
        const { terminal, events } = await within(run.ended, 'the end of the run');
        assert.equal(terminal.type === 'result' && terminal.data.turns, 4);
        assert.deepEqual(withoutDeltas(events), [
          'assistant_message',
          'task_plan',
          'assistant_message',
          'assistant_message',
          'assistant_message',
          'result',
        ]);
      }),
  );

  it(
    'a seeded plan: its task_plan event is the run’s first, before the first turn, and the model sees the checklist',
    TEST_TIMEOUT,
    () =>
      withHarness(async (harness) => {
        const control = controlFor({ brief: 'Audit', steps: ['Read logs', 'File issues'] });
        const run = await harness.start({ prompt: 'hello' }, new ControlPipeline([control]));
        const { events } = await within(run.ended, 'the end of the run');

        const [seeded] = ofType(events, 'task_plan');
        assert.equal(seeded?.seq, 1);
        assert.equal(events[0]?.type, 'task_plan');
        assert.deepEqual(
          [seeded?.data.transition, seeded?.data.source, seeded?.data.revision, seeded?.data.mode],
          [{ kind: 'seeded', stepId: null }, 'seed', 1, 'auto'],
        );
        assert.deepEqual(withoutDeltas(events), ['task_plan', 'assistant_message', 'result']);
        assert.match(
          String(run.calls[0]?.messages.at(-1)?.content),
          /s1 \[pending\] Read logs\ns2 \[pending\] File issues/,
        );
      }),
  );
});

/** A planner answering with `reply` (a plan, null for no plan, or an error to throw), recording its requests. */
function stubPlanner(reply: DraftedPlan | null | Error) {
  const requests: PlanningRequest[] = [];
  const logged: Array<Record<string, unknown>> = [];
  const usage: TokenUsage = { inputTokens: 120, cachedTokens: 0, reasoningTokens: 0, outputTokens: 30 };
  const planner: TaskPlanner = {
    plan: async (request) => {
      requests.push(structuredClone(request));
      if (reply instanceof Error) throw reply;
      return { plan: reply, usage };
    },
  };
  const context = {
    runId: 'run_planonly',
    planner,
    signal: new AbortController().signal,
    logger: { info: (fields: Record<string, unknown>) => void logged.push(fields) },
  };
  return { context, requests, logged, usage };
}

function planOnlyPipeline(setting: PlanSetting, context: ReturnType<typeof stubPlanner>['context']) {
  const control = taskPlanControl(setting, context);
  if (!control) throw new Error('no control');
  return new ControlPipeline([control]);
}

describe('plan-only runs on the turn loop (real loop, store, bus and mock model)', () => {
  it(
    'planOnly with steps: no model call and no planner; one seeded task_plan, then a result with the plan, its numbered text, turns 0 and zero tokens',
    TEST_TIMEOUT,
    () =>
      withHarness(async (harness) => {
        const stub = stubPlanner(new Error('never asked'));
        const setting = { planOnly: true, brief: 'Find a', steps: ['Look up a', 'Report it'] };
        const run = await harness.start(
          { prompt: 'find a', tools: [LOOKUP] },
          planOnlyPipeline(setting, stub.context),
        );
        const { terminal, events } = await within(run.ended, 'the end of the run');

        assert.deepEqual(run.calls, []);
        assert.deepEqual(stub.requests, []);
        assert.deepEqual(withoutDeltas(events), ['task_plan', 'result']);
        const [plan] = ofType(events, 'task_plan');
        assert.deepEqual([plan?.data.source, plan?.data.transition.kind], ['seed', 'seeded']);
        assert.equal(terminal.type, 'result');
        if (terminal.type !== 'result') return;
        assert.deepEqual(terminal.data.plan, {
          brief: 'Find a',
          steps: [
            { title: 'Look up a', status: 'pending' },
            { title: 'Report it', status: 'pending' },
          ],
        });
        assert.equal(terminal.data.text, '1. Look up a\n2. Report it');
        assert.equal(terminal.data.turns, 0);
        assert.deepEqual(terminal.data.tokens, zeroUsage());
        assert.equal(terminal.data.model.id, 'mock/echo');
      }),
  );

  it(
    'planOnly without steps: one planner call with the run’s system prompt and input, no model turn; its plan is the result, its tokens logged under task_planning and not in the result',
    TEST_TIMEOUT,
    () =>
      withHarness(async (harness) => {
        const stub = stubPlanner({ brief: 'Find a', steps: ['Look up a', 'Report it'] });
        const run = await harness.start(
          { prompt: 'find a' },
          planOnlyPipeline({ planOnly: true }, stub.context),
        );
        const { terminal, events } = await within(run.ended, 'the end of the run');

        assert.deepEqual(run.calls, []);
        assert.equal(stub.requests.length, 1);
        assert.equal(stub.requests[0]?.instructions, 'You are the agent under test.');
        assert.equal(JSON.stringify(stub.requests[0]?.input).includes('find a'), true);
        assert.deepEqual(withoutDeltas(events), ['task_plan', 'result']);
        const [plan] = ofType(events, 'task_plan');
        assert.deepEqual([plan?.data.source, plan?.data.transition.kind], ['planner', 'created']);
        assert.equal(terminal.type, 'result');
        if (terminal.type !== 'result') return;
        assert.equal(terminal.data.text, '1. Look up a\n2. Report it');
        assert.deepEqual(terminal.data.tokens, zeroUsage());
        assert.equal(terminal.data.turns, 0);
        // The run's id is bound by the run's logger (runLogger), not repeated in the line's fields.
        assert.deepEqual(stub.logged, [
          { usageSurface: 'task_planning', model: 'mock/echo', tokens: stub.usage },
        ]);
      }),
  );

  it(
    'planOnly without steps: a plan with no steps is the brief alone, or a sentence saying none was needed',
    TEST_TIMEOUT,
    () =>
      withHarness(async (harness) => {
        for (const [brief, text] of [
          ['Say hello', 'Say hello'],
          ['', NO_PLAN_NEEDED],
        ]) {
          const stub = stubPlanner({ brief: brief ?? '', steps: [] });
          const run = await harness.start(
            { prompt: 'hi' },
            planOnlyPipeline({ planOnly: true }, stub.context),
          );
          const { terminal } = await within(run.ended, 'the end of the run');
          assert.equal(terminal.type, 'result');
          if (terminal.type !== 'result') return;
          assert.deepEqual(terminal.data.plan, { brief, steps: [] });
          assert.equal(terminal.data.text, text);
        }
      }),
  );

  it(
    'planOnly without steps: a planner that fails ends the run with its errorClass; a reply that is no plan, with unknown',
    TEST_TIMEOUT,
    () =>
      withHarness(async (harness) => {
        const failure = new ModelTurnError(
          { errorClass: 'rate_limit', message: 'slow down', retryable: true, apiStatus: 429 },
          '',
          false,
        );
        for (const [reply, errorClass] of [
          [failure, 'rate_limit'],
          [null, 'unknown'],
        ] as const) {
          const stub = stubPlanner(reply);
          const run = await harness.start(
            { prompt: 'hi' },
            planOnlyPipeline({ planOnly: true }, stub.context),
          );
          const { terminal, events } = await within(run.ended, 'the end of the run');
          assert.deepEqual(withoutDeltas(events), ['error']);
          assert.equal(terminal.type === 'error' && terminal.data.errorClass, errorClass);
          assert.equal(terminal.type === 'error' && terminal.data.turns, 0);
        }
      }),
  );
});
