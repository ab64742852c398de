import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../src/domain/run-events.ts';
import { baseTerminalFields, NO_STRUCTURED_OUTPUT } from '../../src/domain/terminal-fields.ts';
import { ControlPipeline } from '../../src/engine/loop/control-pipeline.ts';
import type {
  ContinueWith,
  EmitEvent,
  HostTool,
  InterceptedResult,
  RunControl,
  ToolCallContext,
  TurnAdjustments,
} from '../../src/engine/loop/run-control.ts';
import { reasoningProgress, roundSummary } from '../support/control-contexts.ts';

const emit: EmitEvent = () => {};
const turnContext = { turn: 2, emit };
const SCHEMA_A = { name: 'a', schema: { type: 'object' } };
const SCHEMA_B = { name: 'b', schema: { type: 'array' } };

/** A control that only adjusts turns, the same way every time. */
function adjusting(name: string, adjustments: TurnAdjustments | undefined): RunControl {
  return { name, beforeTurn: () => adjustments };
}

function hostTool(name: string, output = `${name} ran`): HostTool {
  return {
    name,
    description: `the ${name} tool`,
    inputSchema: { type: 'object' },
    execute: () => ({ type: 'text', value: output }),
  };
}

function callContext(name: string): ToolCallContext {
  const call = { id: `call_${name}`, name, input: {} };
  return { turn: 1, call, round: [call], tool: undefined };
}

const intercepted = (value: string, event?: RunEvent): InterceptedResult => ({
  output: { type: 'text', value },
  ...(event && { event }),
});

/** A verdict promise the test settles when it chooses. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Whether a promise has settled by the time the microtask queue drains. */
async function settled<T>(promise: Promise<T>): Promise<{ value: T } | 'pending'> {
  const marker = Symbol('pending');
  const winner = await Promise.race([promise, new Promise((resolve) => setImmediate(resolve, marker))]);
  return winner === marker ? 'pending' : { value: winner as T };
}

describe('ControlPipeline.beforeTurn: adjustments combine', () => {
  it('no control, or none with an opinion: no adjustment at all', async () => {
    assert.deepEqual(await new ControlPipeline([]).beforeTurn(turnContext), {});
    const quiet = new ControlPipeline([adjusting('a', undefined), { name: 'b' }, adjusting('c', {})]);
    assert.deepEqual(await quiet.beforeTurn(turnContext), {});
  });

  it('messages are appended in control order; an empty list adds nothing', async () => {
    const pipeline = new ControlPipeline([
      adjusting('first', { messages: [{ role: 'user', content: 'one' }] }),
      adjusting('empty', { messages: [] }),
      adjusting('second', {
        messages: [
          { role: 'user', content: 'two' },
          { role: 'assistant', content: 'three' },
        ],
      }),
    ]);
    assert.deepEqual(await pipeline.beforeTurn(turnContext), {
      messages: [
        { role: 'user', content: 'one' },
        { role: 'user', content: 'two' },
        { role: 'assistant', content: 'three' },
      ],
    });
  });

  it('tools are disabled if any control disables them (a later false does not re-enable them)', async () => {
    const pipeline = new ControlPipeline([
      adjusting('off', { disableTools: true }),
      adjusting('on', { disableTools: false }),
    ]);
    assert.deepEqual(await pipeline.beforeTurn(turnContext), { disableTools: true });
    const none = new ControlPipeline([adjusting('on', { disableTools: false })]);
    assert.deepEqual(await none.beforeTurn(turnContext), {});
  });

  it('the first forced tool and the first response format win', async () => {
    const pipeline = new ControlPipeline([
      adjusting('plain', { messages: [{ role: 'user', content: 'x' }] }),
      adjusting('plan', { forceTool: 'update_task_plan' }),
      adjusting('schema', { forceTool: 'set_model_response', responseFormat: SCHEMA_A }),
      adjusting('other', { responseFormat: SCHEMA_B }),
    ]);
    assert.deepEqual(await pipeline.beforeTurn(turnContext), {
      messages: [{ role: 'user', content: 'x' }],
      forceTool: 'update_task_plan',
      responseFormat: SCHEMA_A,
    });
  });

  it('offered host tools are unioned, in first-offer order, without repeats', async () => {
    const pipeline = new ControlPipeline([
      adjusting('a', { offerHostTools: ['plan', 'report'] }),
      adjusting('b', { offerHostTools: [] }),
      adjusting('c', { offerHostTools: ['report', 'respond'] }),
    ]);
    assert.deepEqual(await pipeline.beforeTurn(turnContext), {
      offerHostTools: ['plan', 'report', 'respond'],
    });
  });

  it('every control is asked with the turn, and an async control is awaited in its place', async () => {
    const asked: string[] = [];
    const pipeline = new ControlPipeline([
      {
        name: 'slow',
        beforeTurn: async ({ turn }) => {
          await new Promise((resolve) => setImmediate(resolve));
          asked.push(`slow@${turn}`);
          return { messages: [{ role: 'user', content: 'slow' }] };
        },
      },
      {
        name: 'fast',
        beforeTurn: ({ turn }) => {
          asked.push(`fast@${turn}`);
          return { messages: [{ role: 'user', content: 'fast' }] };
        },
      },
    ]);
    const merged = await pipeline.beforeTurn(turnContext);
    assert.deepEqual(asked, ['slow@2', 'fast@2']);
    assert.deepEqual(merged.messages, [
      { role: 'user', content: 'slow' },
      { role: 'user', content: 'fast' },
    ]);
  });
});

describe('ControlPipeline.beforeToolCall: the first interception wins', () => {
  it('the first control that intercepts decides; later controls are not asked', () => {
    const asked: string[] = [];
    const control = (name: string, result?: InterceptedResult): RunControl => ({
      name,
      beforeToolCall: (context) => {
        asked.push(`${name}:${context.call.name}`);
        return result;
      },
    });
    const budgetEvent: RunEvent = {
      type: 'tool_budget_exceeded',
      data: { tool: 'search', maxCalls: 1, callIndex: 2 },
    };
    const pipeline = new ControlPipeline([
      control('pass'),
      control('budget', intercepted('over budget', budgetEvent)),
      control('guard', intercepted('loop')),
    ]);
    assert.deepEqual(pipeline.beforeToolCall(callContext('search')), intercepted('over budget', budgetEvent));
    assert.deepEqual(asked, ['pass:search', 'budget:search']);
  });

  it('no control intercepts: undefined (the call goes to its executor)', () => {
    const pipeline = new ControlPipeline([{ name: 'a', beforeToolCall: () => undefined }, { name: 'b' }]);
    assert.equal(pipeline.beforeToolCall(callContext('search')), undefined);
  });
});

describe('ControlPipeline.onReasoning: any abort wins', () => {
  const progress = reasoningProgress({ turn: 0, chars: 120, ms: 40, emit });

  it('watchesReasoning is false when no control has onReasoning (no per-delta work)', () => {
    assert.equal(new ControlPipeline([]).watchesReasoning, false);
    assert.equal(new ControlPipeline([{ name: 'a', beforeTurn: () => undefined }]).watchesReasoning, false);
    assert.equal(
      new ControlPipeline([{ name: 'a' }, { name: 'b', onReasoning: () => 'continue' }]).watchesReasoning,
      true,
    );
  });

  it("all 'continue' (or no opinion) resolves continue, synchronously", () => {
    const pipeline = new ControlPipeline([
      { name: 'a', onReasoning: () => 'continue' },
      { name: 'b', onReasoning: () => undefined },
    ]);
    assert.equal(pipeline.onReasoning(progress), 'continue');
  });

  it("a synchronous 'abort' from any control wins at once, even after a control still deciding", () => {
    const later = deferred<'continue' | 'abort'>();
    const pipeline = new ControlPipeline([
      { name: 'reviewing', onReasoning: () => later.promise },
      { name: 'a', onReasoning: () => 'continue' },
      { name: 'b', onReasoning: () => 'abort' },
    ]);
    assert.equal(pipeline.onReasoning(progress), 'abort');
  });

  it("a promise resolving 'abort' later wins over the others' continue", async () => {
    const review = deferred<'continue' | 'abort'>();
    const other = deferred<'continue' | 'abort'>();
    const pipeline = new ControlPipeline([
      { name: 'sync', onReasoning: () => 'continue' },
      { name: 'review', onReasoning: () => review.promise },
      { name: 'other', onReasoning: () => other.promise },
    ]);
    const verdict = pipeline.onReasoning(progress);
    assert.ok(verdict instanceof Promise);
    other.resolve('continue');
    assert.equal(await settled(verdict), 'pending', 'one control is still deciding');
    review.resolve('abort');
    assert.deepEqual(await settled(verdict), { value: 'abort' });
  });

  it("an 'abort' does not wait for the controls still deciding", async () => {
    const review = deferred<'continue' | 'abort'>();
    const never = deferred<'continue' | 'abort'>();
    const pipeline = new ControlPipeline([
      { name: 'never', onReasoning: () => never.promise },
      { name: 'review', onReasoning: () => review.promise },
    ]);
    const verdict = pipeline.onReasoning(progress);
    review.resolve('abort');
    assert.deepEqual(await settled(verdict as Promise<string>), { value: 'abort' });
  });

  it("promises that all resolve 'continue' resolve continue once the last one does", async () => {
    const first = deferred<'continue' | 'abort'>();
    const second = deferred<'continue' | 'abort'>();
    const pipeline = new ControlPipeline([
      { name: 'first', onReasoning: () => first.promise },
      { name: 'second', onReasoning: () => second.promise },
    ]);
    const verdict = pipeline.onReasoning(progress) as Promise<string>;
    first.resolve('continue');
    assert.equal(await settled(verdict), 'pending');
    second.resolve('continue');
    assert.deepEqual(await settled(verdict), { value: 'continue' });
  });

  it("a control whose review fails does not mask another control's abort decided later", async () => {
    const failing = deferred<'continue' | 'abort'>();
    const review = deferred<'continue' | 'abort'>();
    const pipeline = new ControlPipeline([
      { name: 'failing', onReasoning: () => failing.promise },
      { name: 'review', onReasoning: () => review.promise },
    ]);
    const verdict = pipeline.onReasoning(progress) as Promise<string>;
    failing.reject(new Error('the reviewer model is unavailable'));
    assert.equal(await settled(verdict.catch((error: unknown) => error)), 'pending');
    review.resolve('abort');
    assert.deepEqual(await settled(verdict), { value: 'abort' });
  });

  it('a failed review counts as continue: with every other control continuing, the turn goes on', async () => {
    const failing = deferred<'continue' | 'abort'>();
    const pipeline = new ControlPipeline([
      { name: 'failing', onReasoning: () => failing.promise },
      { name: 'sync', onReasoning: () => 'continue' },
    ]);
    const verdict = pipeline.onReasoning(progress) as Promise<string>;
    failing.reject(new Error('the reviewer model is unavailable'));
    assert.deepEqual(await settled(verdict), { value: 'continue' });
  });

  it('only the controls that watch reasoning are asked, with the progress as given', () => {
    const seen: unknown[] = [];
    const pipeline = new ControlPipeline([
      { name: 'deaf', beforeTurn: () => undefined },
      {
        name: 'watcher',
        onReasoning: (p) => {
          seen.push({ turn: p.turn, chars: p.chars, ms: p.ms });
          return 'continue';
        },
      },
    ]);
    void pipeline.onReasoning(progress);
    assert.deepEqual(seen, [{ turn: 0, chars: 120, ms: 40 }]);
  });
});

describe('ControlPipeline.afterRound and beforeFinish', () => {
  it('afterRound asks every control, in order, with the round', async () => {
    const seen: string[] = [];
    const round = roundSummary({ turn: 3, emit });
    const pipeline = new ControlPipeline([
      {
        name: 'a',
        afterRound: async (r) => {
          await new Promise((resolve) => setImmediate(resolve));
          seen.push(`a@${r.turn}`);
        },
      },
      { name: 'b' },
      { name: 'c', afterRound: (r) => void seen.push(`c@${r.turn}`) },
    ]);
    await pipeline.afterRound(round);
    assert.deepEqual(seen, ['a@3', 'c@3']);
  });

  it('beforeFinish: the first ContinueWith wins; later controls are not asked', async () => {
    const asked: string[] = [];
    const control = (name: string, verdict?: 'accept' | ContinueWith): RunControl => ({
      name,
      beforeFinish: async () => {
        asked.push(name);
        return verdict ?? 'accept';
      },
    });
    const planGuard: ContinueWith = { continueWith: [{ role: 'user', content: 'finish the plan first' }] };
    const schema: ContinueWith = { continueWith: [{ role: 'user', content: 'answer in JSON' }] };
    const pipeline = new ControlPipeline([
      control('accepting', 'accept'),
      control('plan', planGuard),
      control('schema', schema),
    ]);
    const final = { turn: 4, text: 'done', finishReason: 'end_turn', toolsCallable: true, emit };
    assert.deepEqual(await pipeline.beforeFinish(final), planGuard);
    assert.deepEqual(asked, ['accepting', 'plan']);
  });

  it("beforeFinish: 'accept' when every control accepts, or none has an opinion", async () => {
    const final = { turn: 0, text: 'done', finishReason: 'end_turn', toolsCallable: true, emit };
    assert.equal(await new ControlPipeline([]).beforeFinish(final), 'accept');
    const pipeline = new ControlPipeline([{ name: 'a', beforeFinish: () => 'accept' }, { name: 'b' }]);
    assert.equal(await pipeline.beforeFinish(final), 'accept');
  });
});

describe('ControlPipeline: host tools and state', () => {
  it('hostTool finds a host tool of any control by name; unknown names are undefined', () => {
    const plan = hostTool('update_task_plan');
    const respond = hostTool('set_model_response');
    const pipeline = new ControlPipeline([
      { name: 'plan', hostTools: [plan] },
      { name: 'none' },
      { name: 'schema', hostTools: [respond] },
    ]);
    assert.equal(pipeline.hostTool('update_task_plan'), plan);
    assert.equal(pipeline.hostTool('set_model_response'), respond);
    assert.equal(pipeline.hostTool('get_weather'), undefined);
  });

  it('snapshot/restore round-trip by control name; controls without state are left out', () => {
    const counter = (name: string) => {
      let count = 0;
      return {
        control: {
          name,
          beforeToolCall: () => {
            count += 1;
          },
          snapshot: () => ({ count }),
          restore: (state: unknown) => {
            count = (state as { count: number }).count;
          },
        } satisfies RunControl,
        count: () => count,
      };
    };
    const budget = counter('tool_budgets');
    const guard = counter('loop_guard');
    const stateless: RunControl = { name: 'turn_budget', beforeTurn: () => undefined };
    const before = new ControlPipeline([budget.control, stateless, guard.control]);
    before.beforeToolCall(callContext('a'));
    before.beforeToolCall(callContext('b'));
    const snapshot = before.snapshot();
    assert.deepEqual(snapshot, { tool_budgets: { count: 2 }, loop_guard: { count: 2 } });

    // A takeover: fresh controls, restored from the stored snapshot (a JSON round trip).
    const budgetAfter = counter('tool_budgets');
    const guardAfter = counter('loop_guard');
    const after = new ControlPipeline([guardAfter.control, stateless, budgetAfter.control]);
    after.restore(JSON.parse(JSON.stringify(snapshot)) as Record<string, unknown>);
    assert.equal(budgetAfter.count(), 2);
    assert.equal(guardAfter.count(), 2);
    assert.deepEqual(after.snapshot(), snapshot);
  });

  it('restore leaves a control alone when the snapshot has no state under its name', () => {
    let restored = 0;
    const pipeline = new ControlPipeline([
      { name: 'new_control', restore: () => void restored++, snapshot: () => 'fresh' },
    ]);
    pipeline.restore({ some_old_control: { count: 1 } });
    assert.equal(restored, 0);
    assert.deepEqual(pipeline.snapshot(), { new_control: 'fresh' });
  });
});

describe('ControlPipeline.terminalFields: what controls report on the terminal events', () => {
  const base = baseTerminalFields({});
  const enforced = { ...NO_STRUCTURED_OUTPUT, schemaRequested: true, schemaEnforced: true };
  const plan = { brief: 'b', steps: [{ title: 'one', status: 'pending' as const }] };

  it('no control reports: the base fields stand, on result and error', () => {
    const pipeline = new ControlPipeline([{ name: 'quiet' }, { name: 'empty', terminalFields: () => ({}) }]);
    assert.deepEqual(pipeline.terminalFields(base), base);
  });

  it('a contribution overrides the base only on the events it names; a later control overrides an earlier one', () => {
    const pipeline = new ControlPipeline([
      { name: 'planner', terminalFields: () => ({ result: { plan } }) },
      {
        name: 'schema',
        terminalFields: () => ({
          result: { structuredOutput: enforced },
          error: { structuredOutput: enforced },
        }),
      },
      { name: 'later', terminalFields: () => ({ error: { structuredOutput: NO_STRUCTURED_OUTPUT } }) },
    ]);
    assert.deepEqual(pipeline.terminalFields(base), {
      result: { structuredOutput: enforced, plan },
      error: { structuredOutput: NO_STRUCTURED_OUTPUT },
    });
  });
});
