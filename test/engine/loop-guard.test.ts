import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LoopDetectedData, RunEvent } from '../../src/domain/run-events.ts';
import type { RunSpec } from '../../src/domain/run-spec.ts';
import { batchSignature, canonicalJson } from '../../src/engine/controls/call-signature.ts';
import { LOOP_DETECTION_DEFAULTS, loopGuard } from '../../src/engine/controls/loop-guard.ts';
import { controlPipelineFor } from '../../src/engine/controls/run-controls.ts';
import { toolBudgets } from '../../src/engine/controls/tool-budgets.ts';
import { ControlPipeline } from '../../src/engine/loop/control-pipeline.ts';
import type {
  HostTool,
  InterceptedResult,
  RunControl,
  TurnAdjustments,
} from '../../src/engine/loop/run-control.ts';
import type { RunTool, ToolCallRequest } from '../../src/engine/ports.ts';
import { roundSummary } from '../support/control-contexts.ts';

/** The unit under test on the real pipeline, driven turn by turn as the loop and tool-round drive it. */

const PLAN_TOOL: HostTool = {
  name: 'update_task_plan',
  description: 'Updates the plan.',
  inputSchema: { type: 'object' },
  execute: () => ({ type: 'text', value: 'plan updated' }),
};
const isHostTool = (name: string) => name === PLAN_TOOL.name;

function declared(name: string): RunTool {
  return {
    kind: 'local',
    name,
    description: name,
    inputSchema: { type: 'object' },
    readOnly: false,
    retain: false,
    callExtras: {},
  };
}

type Call = [name: string, input: Record<string, unknown>];

interface PlayedTurn {
  /** What beforeTurn asked for before the turn. */
  adjustments: TurnAdjustments;
  /** Each call's interception, in emit order (undefined: the call runs). */
  intercepted: Array<InterceptedResult | undefined>;
  /** Events attached to intercepted calls, then those emitted after the round, in order. */
  events: RunEvent[];
}

/** A run driven through the pipeline: beforeTurn, each call's beforeToolCall, then afterRound. */
class Driver {
  readonly pipeline: ControlPipeline;
  turn = 0;
  constructor(controls: ControlPipeline | readonly RunControl[]) {
    this.pipeline = controls instanceof ControlPipeline ? controls : new ControlPipeline(controls);
  }

  async play(calls: readonly Call[]): Promise<PlayedTurn> {
    const turn = this.turn++;
    const events: RunEvent[] = [];
    const emit = (event: RunEvent) => events.push(event);
    const adjustments = await this.pipeline.beforeTurn({ turn, emit });
    const round: ToolCallRequest[] = calls.map(([name, input], index) => ({
      id: `call_${turn}_${index}`,
      name,
      input,
    }));
    const intercepted = round.map((call) => {
      const tool = isHostTool(call.name) ? PLAN_TOOL : declared(call.name);
      const result = this.pipeline.beforeToolCall({ turn, call, round, tool });
      if (result?.event) events.push(result.event);
      return result;
    });
    await this.pipeline.afterRound(
      roundSummary({
        turn,
        emit,
        calls: round.map((call, index) => ({
          call,
          intercepted: intercepted[index] !== undefined,
          output: intercepted[index]?.output ?? { type: 'text', value: 'ran' },
        })),
      }),
    );
    return { adjustments, intercepted, events };
  }

  /** The adjustments of the turn after the last one played. */
  next(): Promise<TurnAdjustments> {
    return this.pipeline.beforeTurn({ turn: this.turn, emit: () => {} });
  }
}

const SEARCH: Call = ['search', { q: 'weather', page: 1 }];
const SEARCH_OTHER: Call = ['search', { q: 'news', page: 1 }];

function guarded(thresholds = LOOP_DETECTION_DEFAULTS): Driver {
  return new Driver([loopGuard(thresholds, isHostTool)]);
}

const loopEvents = (played: PlayedTurn): LoopDetectedData[] =>
  played.events.flatMap((event) => (event.type === 'loop_detected' ? [event.data] : []));
const allSkipped = (played: PlayedTurn) => played.intercepted.every((result) => result !== undefined);
const noneSkipped = (played: PlayedTurn) => played.intercepted.every((result) => result === undefined);

function outputText(result: InterceptedResult | undefined): string {
  return result && 'value' in result.output ? String(result.output.value) : '';
}

function textOf(adjustments: TurnAdjustments): string {
  return (adjustments.messages ?? [])
    .map((message) => (typeof message.content === 'string' ? message.content : ''))
    .join('\n');
}

describe('call signature', () => {
  it('canonical JSON sorts object keys recursively and keeps array order', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 0 }], c: null } }),
      canonicalJson({ a: { c: null, d: [2, { x: 0, y: 1 }] }, b: 1 }),
    );
    assert.notEqual(canonicalJson({ a: [1, 2] }), canonicalJson({ a: [2, 1] }));
    assert.equal(canonicalJson(undefined), 'null');
  });

  it('a batch signature is invariant to call order and to key order in the arguments', () => {
    const one = batchSignature([
      { name: 'search', input: { q: 'a', page: 1 } },
      { name: 'fetch', input: { url: 'u' } },
    ]);
    const two = batchSignature([
      { name: 'fetch', input: { url: 'u' } },
      { name: 'search', input: { page: 1, q: 'a' } },
    ]);
    assert.equal(one, two);
  });

  it('a batch signature is a multiset: a repeated call, other arguments or another tool differ', () => {
    const single = batchSignature([{ name: 'search', input: { q: 'a' } }]);
    assert.notEqual(
      batchSignature([
        { name: 'search', input: { q: 'a' } },
        { name: 'search', input: { q: 'a' } },
      ]),
      single,
    );
    assert.notEqual(batchSignature([{ name: 'search', input: { q: 'b' } }]), single);
    assert.notEqual(batchSignature([{ name: 'lookup', input: { q: 'a' } }]), single);
  });
});

describe('loop guard', () => {
  it('the 3rd identical batch in a row is skipped: synthetic results, one soft loop_detected on its first call, a nudge before the next turn', async () => {
    const driver = guarded();
    const batch: Call[] = [SEARCH, ['fetch', { url: 'https://example.com' }]];
    for (let turn = 0; turn < 2; turn++) {
      const played = await driver.play(batch);
      assert.ok(noneSkipped(played), `turn ${turn} runs`);
      assert.deepEqual(played.events, []);
    }
    const third = await driver.play(batch);
    assert.ok(allSkipped(third));
    assert.match(outputText(third.intercepted[0]), /already made this exact call \(search/);
    assert.match(outputText(third.intercepted[1]), /already made this exact call \(fetch/);
    assert.deepEqual(third.intercepted[0]?.event, {
      type: 'loop_detected',
      data: { consecutiveCount: 3, hardCutoff: false, tools: ['search', 'fetch'] },
    });
    assert.equal(third.intercepted[1]?.event, undefined, 'the event goes with the first skipped call only');
    const next = await driver.next();
    assert.equal(next.disableTools, undefined, 'a soft nudge leaves the tools on');
    assert.equal(next.messages?.length, 1);
    assert.equal(next.messages?.[0]?.role, 'user');
    assert.match(textOf(next), /repeating the same tool calls.*use the results you have/is);
  });

  it('identical means the same multiset: reordered calls with reordered argument keys still count', async () => {
    const driver = guarded();
    await driver.play([
      ['search', { q: 'a', page: 1 }],
      ['fetch', { url: 'u' }],
    ]);
    await driver.play([
      ['fetch', { url: 'u' }],
      ['search', { page: 1, q: 'a' }],
    ]);
    const third = await driver.play([
      ['search', { page: 1, q: 'a' }],
      ['fetch', { url: 'u' }],
    ]);
    assert.ok(allSkipped(third));
    assert.equal(loopEvents(third)[0]?.consecutiveCount, 3);
  });

  it('a turn with a different batch resets the count to 1', async () => {
    const driver = guarded();
    await driver.play([SEARCH]);
    await driver.play([SEARCH]);
    assert.ok(noneSkipped(await driver.play([SEARCH_OTHER])), 'a different batch runs');
    assert.ok(noneSkipped(await driver.play([SEARCH])), 'count 1 again');
    assert.ok(noneSkipped(await driver.play([SEARCH])), 'count 2');
    const third = await driver.play([SEARCH]);
    assert.ok(allSkipped(third));
    assert.equal(loopEvents(third)[0]?.consecutiveCount, 3);
  });

  it('between the thresholds every repeat is skipped and nudged; the 6th is the hard cutoff: tools disabled from then on, with one finalise message', async () => {
    const driver = guarded();
    await driver.play([SEARCH]);
    await driver.play([SEARCH]);
    for (const count of [3, 4, 5]) {
      const played = await driver.play([SEARCH]);
      assert.ok(allSkipped(played), `repeat ${count} is skipped`);
      assert.equal(loopEvents(played).length, count === 3 ? 1 : 0, `events at repeat ${count}`);
      const adjustments = await driver.next();
      assert.match(textOf(adjustments), /repeating the same tool calls/, `nudged after repeat ${count}`);
      assert.equal(adjustments.disableTools, undefined);
    }
    const sixth = await driver.play([SEARCH]);
    assert.ok(allSkipped(sixth), 'the hard cutoff batch is skipped too');
    assert.deepEqual(loopEvents(sixth), [{ consecutiveCount: 6, hardCutoff: true, tools: ['search'] }]);
    const finalTurn = await driver.next();
    assert.equal(finalTurn.disableTools, true);
    assert.match(textOf(finalTurn), /Tools are now disabled: give your final answer now/);
    // A control that rejects the final answer gets more turns: they stay without tools, unsteered.
    assert.deepEqual(await driver.next(), { disableTools: true });
  });

  it('at most one soft and one hard loop_detected per run, however many loops it has', async () => {
    const driver = guarded({ consecutiveThreshold: 2, hardCutoffThreshold: 5 });
    const events: LoopDetectedData[] = [];
    const play = async (batch: Call) => events.push(...loopEvents(await driver.play([batch])));
    for (const batch of [SEARCH, SEARCH, SEARCH_OTHER, SEARCH_OTHER, SEARCH_OTHER, SEARCH]) await play(batch);
    assert.deepEqual(events, [{ consecutiveCount: 2, hardCutoff: false, tools: ['search'] }]);
    const skipped = await driver.play([SEARCH]);
    assert.ok(allSkipped(skipped), 'a later loop is still skipped, silently');
    for (let turn = 0; turn < 3; turn++) await play(SEARCH);
    assert.deepEqual(events.slice(1), [{ consecutiveCount: 5, hardCutoff: true, tools: ['search'] }]);
  });

  it('custom thresholds: consecutiveThreshold 2 skips the 2nd repeat, hardCutoffThreshold 3 cuts off at the 3rd', async () => {
    const driver = guarded({ consecutiveThreshold: 2, hardCutoffThreshold: 3 });
    assert.ok(noneSkipped(await driver.play([SEARCH])));
    const second = await driver.play([SEARCH]);
    assert.deepEqual(loopEvents(second), [{ consecutiveCount: 2, hardCutoff: false, tools: ['search'] }]);
    assert.equal((await driver.next()).disableTools, undefined);
    const third = await driver.play([SEARCH]);
    assert.deepEqual(loopEvents(third), [{ consecutiveCount: 3, hardCutoff: true, tools: ['search'] }]);
    assert.equal((await driver.next()).disableTools, true);
  });

  it('host tools are left out of the signature and never skipped', async () => {
    const driver = guarded();
    await driver.play([['update_task_plan', { step: 1 }], SEARCH]);
    await driver.play([SEARCH]);
    const third = await driver.play([['update_task_plan', { step: 3 }], SEARCH]);
    assert.equal(third.intercepted[0], undefined, 'the host tool call runs');
    assert.ok(third.intercepted[1], 'the repeated declared call is skipped');
    assert.deepEqual(loopEvents(third), [{ consecutiveCount: 3, hardCutoff: false, tools: ['search'] }]);
    const hostOnly = await driver.play([['update_task_plan', { step: 4 }]]);
    assert.ok(noneSkipped(hostOnly));
    assert.ok(allSkipped(await driver.play([SEARCH])), 'a host-only turn neither counts nor resets');
  });

  it('snapshot and restore (as plain JSON) continue the count on another worker', async () => {
    const first = guarded();
    await first.play([SEARCH]);
    await first.play([SEARCH]);
    const saved = JSON.parse(JSON.stringify(first.pipeline.snapshot())) as Record<string, unknown>;
    assert.ok('loop_guard' in saved);

    const takeover = guarded();
    takeover.pipeline.restore(saved);
    takeover.turn = first.turn;
    const third = await takeover.play([SEARCH]);
    assert.ok(allSkipped(third));
    assert.equal(loopEvents(third)[0]?.consecutiveCount, 3);
    // A takeover after the soft event does not report it again.
    const again = guarded();
    again.pipeline.restore(
      JSON.parse(JSON.stringify(takeover.pipeline.snapshot())) as Record<string, unknown>,
    );
    again.turn = takeover.turn;
    assert.match(textOf(await again.next()), /repeating the same tool calls/, 'the pending nudge survives');
    const fourth = await again.play([SEARCH]);
    assert.ok(allSkipped(fourth));
    assert.deepEqual(loopEvents(fourth), []);
  });

  it('a batch the budget intercepted whole is still judged: loop_detected after the round, then the nudge', async () => {
    // Budget before guard, as controlPipelineFor orders them: every attempt reaches the budget.
    const driver = new Driver([
      toolBudgets({ search: { maxCalls: 0 } }),
      loopGuard(LOOP_DETECTION_DEFAULTS, isHostTool),
    ]);
    for (let turn = 0; turn < 2; turn++) {
      const played = await driver.play([SEARCH]);
      assert.deepEqual(
        played.events.map((event) => event.type),
        ['tool_budget_exceeded'],
      );
    }
    const third = await driver.play([SEARCH]);
    assert.deepEqual(
      third.events.map((event) => event.type),
      ['tool_budget_exceeded', 'loop_detected'],
    );
    assert.match(outputText(third.intercepted[0]), /budget for search/, 'the budget answers the call');
    assert.match(textOf(await driver.next()), /repeating the same tool calls/);
  });
});

describe('controlPipelineFor: loop guard and tool budgets from the spec', () => {
  const specWith = (fields: Partial<RunSpec>): RunSpec => ({
    prompt: 'p',
    ...fields,
    effective: {
      systemPrompt: 's',
      model: { ref: 'platform:x', id: 'mock/echo', provider: 'mock', vendorModelId: 'echo' },
      reasoningLevel: null,
      tools: [],
      localToolTimeoutMs: 60_000,
    },
  });
  const driverFor = (spec: RunSpec) => new Driver(controlPipelineFor(spec));
  const skippedAt = async (driver: Driver, turns: number) => {
    const skipped: number[] = [];
    for (let turn = 1; turn <= turns; turn++) {
      if (allSkipped(await driver.play([SEARCH]))) skipped.push(turn);
    }
    return skipped;
  };

  it('loopDetection omitted: the defaults 3 and 6 apply', async () => {
    const driver = driverFor(specWith({}));
    assert.deepEqual(await skippedAt(driver, 6), [3, 4, 5, 6]);
    assert.equal((await driver.next()).disableTools, true);
  });

  it('loopDetection false: no guard, repeats run until budgets.maxToolTurns', async () => {
    const driver = driverFor(specWith({ loopDetection: false, budgets: { maxToolTurns: 8 } }));
    assert.deepEqual(await skippedAt(driver, 8), []);
    assert.equal((await driver.next()).disableTools, true, 'the turn budget still applies');
  });

  it('a budget-exceeded call inside a loop is reported as tool_budget_exceeded, its callIndex the attempt count', async () => {
    const driver = driverFor(specWith({ toolBudgets: { search: { maxCalls: 1 } } }));
    const types: string[][] = [];
    for (let turn = 0; turn < 4; turn++) {
      types.push(
        (await driver.play([SEARCH])).events.map((event) => `${event.type}:${JSON.stringify(event.data)}`),
      );
    }
    assert.deepEqual(types, [
      [],
      ['tool_budget_exceeded:{"tool":"search","maxCalls":1,"callIndex":2}'],
      [
        'tool_budget_exceeded:{"tool":"search","maxCalls":1,"callIndex":3}',
        'loop_detected:{"consecutiveCount":3,"hardCutoff":false,"tools":["search"]}',
      ],
      ['tool_budget_exceeded:{"tool":"search","maxCalls":1,"callIndex":4}'],
    ]);
  });
});
