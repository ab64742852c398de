import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelMessage } from 'ai';
import type { RunEvent } from '../../src/domain/run-events.ts';
import type { TokenUsage } from '../../src/domain/usage.ts';
import { FINALIZE_MESSAGE, redirectMessage } from '../../src/engine/controls/supervisor/steering-messages.ts';
import { supervisor, type SupervisorDeps } from '../../src/engine/controls/supervisor/supervisor-control.ts';
import {
  REASONING_TRIGGER_DEFAULTS,
  supervisorConfigOf,
  type SupervisorConfig,
} from '../../src/engine/controls/supervisor/supervisor-setting.ts';
import { supervisorControls } from '../../src/engine/controls/supervisor/run-supervisor.ts';
import type {
  JudgeReview,
  JudgeReviewRequest,
  JudgeVerdict,
  RunJudge,
  RunJudges,
} from '../../src/engine/ports.ts';
import { ControlPipeline } from '../../src/engine/loop/control-pipeline.ts';
import { openLoopHarness, parseEvent, withoutDeltas, within } from '../support/turn-loop-harness.ts';
import { roundSummary } from '../support/control-contexts.ts';

const TEST_TIMEOUT = { timeout: 60_000 };

const JUDGE_MODEL = { id: 'judge/j-1', provider: 'judge', vendorModelId: 'j-1' };
const USAGE: TokenUsage = { inputTokens: 50, cachedTokens: 0, reasoningTokens: 0, outputTokens: 7 };
const CONVERSATION: ModelMessage[] = [{ role: 'user', content: 'find the answer' }];

/** What the stub judge does for one review: a verdict, a reply that is none, a failure, or a promise of one. */
type Answer = JudgeVerdict | 'no verdict' | Error | Promise<JudgeVerdict>;

/** A judge answering from a script, recording what each review was asked with. */
function stubJudge(answers: Answer[]) {
  const requests: JudgeReviewRequest[] = [];
  const signals: AbortSignal[] = [];
  const judge: RunJudge = {
    model: JUDGE_MODEL,
    review: async (request, signal) => {
      requests.push(request);
      signals.push(signal);
      const answer = answers.shift();
      if (answer === undefined) throw new Error('the test scripted no more reviews');
      if (answer instanceof Error) throw answer;
      const verdict = answer === 'no verdict' ? null : await answer;
      return { verdict, usage: USAGE, llmCalls: 1 } satisfies JudgeReview;
    },
  };
  return { judge, requests, signals };
}

const CONFIG: SupervisorConfig = { interval: 1, modelId: undefined, reasoningTrigger: null };

/** A supervisor on a stub judge, and the events, usage reports and warnings it produced. */
function harness(config: Partial<SupervisorConfig>, answers: Answer[], deps: Partial<SupervisorDeps> = {}) {
  const stub = stubJudge(answers);
  const events: RunEvent[] = [];
  const usage: TokenUsage[] = [];
  const warnings: unknown[][] = [];
  const run = new AbortController();
  const control = supervisor(
    { ...CONFIG, ...config },
    {
      resolveJudge: async () => stub.judge,
      signal: run.signal,
      logger: { warn: (...args: unknown[]) => void warnings.push(args) },
      ...deps,
    },
  );
  const emit = (event: RunEvent) => void events.push(event);
  const reportUsage = (spent: TokenUsage) => void usage.push(spent);
  let turn = 0;
  return {
    control,
    ...stub,
    events,
    usage,
    warnings,
    run,
    /** The start of the next turn: its adjustments. */
    beforeTurn: () => control.beforeTurn?.({ turn, emit }),
    /** The bottom of the current turn's tool round; the next turn comes next. */
    afterRound: async () => {
      await control.afterRound?.({ turn, calls: [], emit, conversation: CONVERSATION, reportUsage });
      turn += 1;
    },
    /** A final answer of the current turn. */
    beforeFinish: () =>
      control.beforeFinish?.({ turn, text: 'done', finishReason: 'end_turn', toolsCallable: true, emit }),
    /** A thought of the current turn, with the span at `chars` characters and `ms` milliseconds. */
    thought: (chars: number, ms = 0) =>
      control.onReasoning?.({
        turn,
        chars,
        ms,
        emit,
        conversation: CONVERSATION,
        thoughts: 't'.repeat(chars),
        reportUsage,
      }),
    /** A turn that ends without a tool round (cut, or with a rejected final answer). */
    skipTurn: () => void (turn += 1),
    supervisorEvents: () => events.flatMap((event) => (event.type === 'supervisor' ? [event.data] : [])),
  };
}

const onTrack: JudgeVerdict = { action: 'on_track', reason: 'progressing' };
const redirect: JudgeVerdict = { action: 'redirect', reason: 'looping', redirect: 'Try the index.' };
const finalize: JudgeVerdict = { action: 'finalize', reason: 'enough found' };

describe('supervisor setting forms', () => {
  it('omitted or false: no judge; true: interval 5 and the reasoning trigger on at 3000 chars / 30000 ms', () => {
    assert.equal(supervisorConfigOf(undefined), undefined);
    assert.equal(supervisorConfigOf(false), undefined);
    assert.deepEqual(supervisorConfigOf(true), {
      interval: 5,
      modelId: undefined,
      reasoningTrigger: { chars: 3000, ms: 30_000 },
    });
    assert.deepEqual(REASONING_TRIGGER_DEFAULTS, { chars: 3000, ms: 30_000 });
  });

  it('an object tunes interval, modelId and the trigger (a bound not given keeps its default; false turns it off)', () => {
    assert.deepEqual(
      supervisorConfigOf({ interval: 2, modelId: 'judge/j-1', reasoningTrigger: { chars: 20 } }),
      {
        interval: 2,
        modelId: 'judge/j-1',
        reasoningTrigger: { chars: 20, ms: 30_000 },
      },
    );
    assert.deepEqual(supervisorConfigOf({ reasoningTrigger: false }), {
      interval: 5,
      modelId: undefined,
      reasoningTrigger: null,
    });
  });

  it('the run’s judge comes from its spec’s modelId in its workspace (omitted: the workspace default); no run context, no supervisor', async () => {
    const asked: Array<[string, string | undefined]> = [];
    const judges: RunJudges = {
      judgeFor: async (workspaceId, modelId) => {
        asked.push([workspaceId, modelId]);
        return stubJudge([]).judge;
      },
    };
    const context = {
      runId: 'run_1',
      workspaceId: 'ws_1',
      signal: new AbortController().signal,
      logger: { warn: () => {} } as never,
      judges,
      planner: { plan: () => Promise.reject(new Error('no planning here')) },
    };
    assert.deepEqual(supervisorControls(undefined, context), []);
    assert.deepEqual(supervisorControls(true, undefined), []);
    for (const [setting, modelId] of [
      [{ modelId: 'judge/j-1' }, 'judge/j-1'],
      [true, undefined],
    ] as const) {
      const [control] = supervisorControls(setting, context);
      await control?.beforeTurn?.({ turn: 0, emit: () => {} });
      assert.equal(asked.at(-1)?.[1], modelId);
    }
    assert.deepEqual(
      asked.map(([workspaceId]) => workspaceId),
      ['ws_1', 'ws_1'],
    );
  });
});

describe('supervisor reviews at turn boundaries', () => {
  it('interval: a review at the bottom of the tool round once `interval` model invocations went by since the last one', async () => {
    const h = harness({ interval: 2 }, [onTrack, onTrack]);
    for (let turn = 0; turn < 5; turn++) {
      await h.beforeTurn();
      await h.afterRound();
    }
    assert.equal(h.requests.length, 2, 'reviewed after the 2nd and the 4th invocation');
    assert.deepEqual(h.requests[0], { phase: 'turn_boundary', conversation: CONVERSATION });
  });

  it('a turn cut mid-stream counts as an invocation toward the interval', async () => {
    const h = harness({ interval: 2 }, [onTrack]);
    await h.beforeTurn();
    h.skipTurn();
    await h.beforeTurn();
    await h.afterRound();
    assert.equal(h.requests.length, 1);
  });

  it('on_track: a supervisor event with every field, nothing changes the next turn, the judge’s tokens are reported', async () => {
    const h = harness({}, [onTrack]);
    await h.beforeTurn();
    await h.afterRound();
    assert.deepEqual(h.supervisorEvents(), [
      { action: 'on_track', reason: 'progressing', llmCalls: 1, phase: 'turn_boundary', model: JUDGE_MODEL },
    ]);
    assert.deepEqual(h.usage, [USAGE]);
    assert.equal(await h.beforeTurn(), undefined);
  });

  it('redirect: the next turn starts with a steering user message carrying the judge’s text; tools stay available; once only', async () => {
    const r = harness({}, [redirect, onTrack]);
    await r.beforeTurn();
    await r.afterRound();
    assert.deepEqual(r.supervisorEvents(), [
      {
        action: 'redirect',
        reason: 'looping',
        redirect: 'Try the index.',
        llmCalls: 1,
        phase: 'turn_boundary',
        model: JUDGE_MODEL,
      },
    ]);
    assert.deepEqual(await r.beforeTurn(), { messages: [redirectMessage('Try the index.')] });
    const steering = redirectMessage('Try the index.');
    assert.equal(steering.role, 'user');
    assert.match(String(steering.content), /Try the index\./);
    await r.afterRound();
    assert.equal(await r.beforeTurn(), undefined, 'the steering is given once');
  });

  it('finalize: the next turn runs tools-disabled, asked for the final answer', async () => {
    const h = harness({}, [finalize]);
    await h.beforeTurn();
    await h.afterRound();
    assert.deepEqual(
      h.supervisorEvents().map((data) => data.action),
      ['finalize'],
    );
    assert.equal('redirect' in (h.supervisorEvents()[0] ?? {}), false, 'redirect only on redirect');
    assert.deepEqual(await h.beforeTurn(), { disableTools: true, messages: [FINALIZE_MESSAGE] });
  });
});

describe('supervisor failures never fail the run', () => {
  it('a judge call that fails: warned, no event, no steering, no usage; the next review happens as usual', async () => {
    const h = harness({}, [new Error('HTTP 500'), onTrack]);
    await h.beforeTurn();
    await h.afterRound();
    assert.deepEqual(h.supervisorEvents(), []);
    assert.equal(h.warnings.length, 1);
    assert.deepEqual(h.usage, []);
    assert.equal(await h.beforeTurn(), undefined);
    await h.afterRound();
    assert.deepEqual(
      h.supervisorEvents().map((data) => data.action),
      ['on_track'],
    );
  });

  it('a reply that is no verdict: warned, no event; its tokens still count', async () => {
    const h = harness({}, ['no verdict']);
    await h.beforeTurn();
    await h.afterRound();
    assert.deepEqual(h.supervisorEvents(), []);
    assert.equal(h.warnings.length, 1);
    assert.deepEqual(h.usage, [USAGE]);
  });

  it('a judge that does not answer within the review timeout is given up on (its signal aborts)', async () => {
    const warnings: unknown[] = [];
    const stub = stubJudge([]);
    let seen: AbortSignal | undefined;
    stub.judge.review = (_request, signal) =>
      new Promise((_resolve, reject) => {
        seen = signal;
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    const timed = supervisor(CONFIG, {
      resolveJudge: async () => stub.judge,
      signal: new AbortController().signal,
      logger: { warn: (...args: unknown[]) => void warnings.push(args) },
      reviewTimeoutMs: 20,
    });
    await timed.beforeTurn?.({ turn: 0, emit: () => {} });
    await within(
      Promise.resolve(timed.afterRound?.(roundSummary({ emit: () => assert.fail('no event') }))),
      'the review to time out',
    );
    assert.equal(seen?.aborted, true);
    assert.equal(warnings.length, 1);
  });

  it('a run cancelled during a review: the judge’s call is aborted and the review skipped without a warning', async () => {
    const stub = stubJudge([]);
    let asked!: () => void;
    const reviewing = new Promise<void>((resolve) => (asked = resolve));
    stub.judge.review = (_request, signal) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason));
        asked();
      });
    const run = new AbortController();
    const warnings: unknown[] = [];
    const control = supervisor(CONFIG, {
      resolveJudge: async () => stub.judge,
      signal: run.signal,
      logger: { warn: (...args: unknown[]) => void warnings.push(args) },
    });
    await control.beforeTurn?.({ turn: 0, emit: () => {} });
    const reviewed = control.afterRound?.(roundSummary({ emit: () => assert.fail('no event') }));
    await within(reviewing, 'the judge to be asked');
    run.abort(new Error('cancelled'));
    await within(Promise.resolve(reviewed), 'the review to give up');
    assert.deepEqual(warnings, []);
  });

  it('a judge model that does not resolve: warned once, the run goes on without reviews', async () => {
    const h = harness({}, [], { resolveJudge: async () => Promise.reject(new Error('no such model')) });
    for (let turn = 0; turn < 3; turn++) {
      assert.equal(await h.beforeTurn(), undefined);
      await h.afterRound();
    }
    assert.equal(h.warnings.length, 1);
    assert.deepEqual(h.supervisorEvents(), []);
  });
});

describe('supervisor mid-turn reviews (reasoning trigger)', () => {
  const trigger = { chars: 100, ms: 5_000 };

  it('reasoningTrigger false: the supervisor does not watch reasoning at all', () => {
    assert.equal(harness({ reasoningTrigger: null }, []).control.onReasoning, undefined);
  });

  it('by chars: below the bound thoughts go on; past it one review (phase reasoning, with the thoughts) whose redirect aborts the turn and steers the next', async () => {
    const h = harness({ reasoningTrigger: trigger, interval: 100 }, [redirect]);
    await h.beforeTurn();
    assert.equal(h.thought(40), 'continue');
    assert.equal(h.thought(99), 'continue');
    const verdict = h.thought(120);
    assert.ok(verdict instanceof Promise, 'a review decides later');
    assert.equal(h.thought(150), 'continue', 'once per span');
    assert.equal(await verdict, 'abort');
    assert.deepEqual(h.requests, [
      { phase: 'reasoning', conversation: CONVERSATION, thoughts: 't'.repeat(120) },
    ]);
    assert.deepEqual(h.supervisorEvents(), [
      {
        action: 'redirect',
        reason: 'looping',
        redirect: 'Try the index.',
        llmCalls: 1,
        phase: 'reasoning',
        model: JUDGE_MODEL,
      },
    ]);
    assert.deepEqual(h.usage, [USAGE]);
    h.skipTurn();
    assert.deepEqual(await h.beforeTurn(), { messages: [redirectMessage('Try the index.')] });
  });

  it('by ms: a short span that lasts past the bound is reviewed; on_track lets the turn go on', async () => {
    const h = harness({ reasoningTrigger: trigger }, [onTrack]);
    await h.beforeTurn();
    assert.equal(h.thought(10, 4_999), 'continue');
    assert.equal(await h.thought(12, 5_000), 'continue');
    assert.deepEqual(
      h.supervisorEvents().map((data) => [data.action, data.phase]),
      [['on_track', 'reasoning']],
    );
  });

  it('finalize mid-turn aborts the turn and makes the next one tools-disabled', async () => {
    const h = harness({ reasoningTrigger: trigger }, [finalize]);
    await h.beforeTurn();
    assert.equal(await h.thought(500), 'abort');
    h.skipTurn();
    assert.deepEqual(await h.beforeTurn(), { disableTools: true, messages: [FINALIZE_MESSAGE] });
  });

  it('a new span of the same turn (thoughts after text) may be reviewed again; a failed review lets the turn go on', async () => {
    const h = harness({ reasoningTrigger: trigger }, [new Error('timeout'), onTrack]);
    await h.beforeTurn();
    assert.equal(await h.thought(200), 'continue');
    assert.equal(h.thought(300), 'continue');
    assert.equal(await h.thought(150), 'continue', 'fewer chars: a new span, reviewed');
    assert.equal(h.requests.length, 2);
  });

  it('a mid-turn review restarts the interval count: no turn-boundary review right after it', async () => {
    const h = harness({ reasoningTrigger: trigger, interval: 1 }, [onTrack, onTrack]);
    await h.beforeTurn();
    await h.thought(200);
    await h.afterRound();
    assert.equal(h.requests.length, 1);
    await h.beforeTurn();
    await h.afterRound();
    assert.equal(h.requests.length, 2);
  });

  it('the turn that starts with a verdict’s steering gets no mid-turn review', async () => {
    const h = harness({ reasoningTrigger: trigger }, [redirect, onTrack]);
    await h.beforeTurn();
    assert.equal(await h.thought(200), 'abort');
    h.skipTurn();
    await h.beforeTurn();
    assert.equal(h.thought(5_000, 60_000), 'continue');
    h.skipTurn();
    await h.beforeTurn();
    assert.ok(h.thought(200) instanceof Promise, 'later turns are watched again');
  });

  it('a verdict that lands once the final answer is in: redirect rejects it with the steering message, finalize lets it stand', async () => {
    const late = harness({ reasoningTrigger: trigger }, [redirect]);
    await late.beforeTurn();
    await late.thought(200);
    assert.deepEqual(await late.beforeFinish(), { continueWith: [redirectMessage('Try the index.')] });
    late.skipTurn();
    assert.equal(await late.beforeTurn(), undefined, 'the steering is not given twice');
    assert.equal(late.thought(5_000), 'continue', 'the steered turn is not cut');

    const done = harness({ reasoningTrigger: trigger }, [finalize]);
    await done.beforeTurn();
    await done.thought(200);
    assert.equal(await done.beforeFinish(), 'accept');
    assert.equal(await done.beforeFinish(), 'accept');
  });
});

describe('supervisor state across a takeover', () => {
  it('snapshot/restore keeps the invocations counted since the last review and a verdict still to apply', async () => {
    const h = harness({ interval: 3 }, [redirect]);
    await h.beforeTurn();
    await h.afterRound();
    await h.beforeTurn();
    await h.afterRound();
    assert.deepEqual(h.control.snapshot?.(), { callsSinceReview: 2, pending: null, steerNext: false });
    await h.beforeTurn();
    await h.afterRound();
    const state = h.control.snapshot?.();
    assert.deepEqual(state, {
      callsSinceReview: 0,
      pending: { action: 'redirect', redirect: 'Try the index.' },
      steerNext: false,
    });

    const again = harness({ interval: 3 }, [onTrack]);
    again.control.restore?.(JSON.parse(JSON.stringify(state)));
    assert.deepEqual(await again.beforeTurn(), { messages: [redirectMessage('Try the index.')] });
    await again.afterRound();
    await again.beforeTurn();
    await again.afterRound();
    assert.equal(again.requests.length, 0);
    await again.beforeTurn();
    await again.afterRound();
    assert.equal(again.requests.length, 1, 'the count went on from the restored state');
  });

  it('restore ignores a state that is not the supervisor’s', async () => {
    const h = harness({ interval: 1 }, [onTrack]);
    h.control.restore?.({ something: 'else' });
    h.control.restore?.(null);
    await h.beforeTurn();
    await h.afterRound();
    assert.equal(h.requests.length, 1);
  });
});

describe('supervisor in the turn loop', () => {
  it(
    'a mid-turn review still open when the turn completes: the turn waits for it, and a redirect rejects the final answer with its steering',
    TEST_TIMEOUT,
    async () => {
      const harness = await openLoopHarness();
      try {
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        const stub = stubJudge([released.then(() => redirect)]);
        const control = supervisor(
          { interval: 100, modelId: undefined, reasoningTrigger: { chars: 1, ms: 60_000 } },
          {
            resolveJudge: async () => stub.judge,
            signal: new AbortController().signal,
            logger: { warn: () => assert.fail('no warning') },
          },
        );
        // `slow…` pauses between chunks: the whole reply streams while the review is open.
        const run = await harness.start(
          { prompt: 'hello', reasoningLevel: 50, vendorModelId: 'slow-echo' },
          new ControlPipeline([control]),
        );
        const streamed = () =>
          run.live
            .filter((event) => event.type === 'assistant_delta')
            .map((event) => parseEvent(event))
            .map((event) => (event.type === 'assistant_delta' ? event.data.text : ''))
            .join('');
        await run.waitFor('assistant_delta', () => streamed() === 'You said: hello');
        release();
        const { terminal, events } = await within(run.ended, 'the run to end');

        assert.equal(terminal.type, 'result');
        const types = withoutDeltas(events);
        assert.deepEqual(types, ['supervisor', 'assistant_message', 'assistant_message', 'result']);
        assert.equal(stub.requests.length, 1, 'the steered turn is not reviewed mid-turn');
        assert.equal(stub.requests[0]?.phase, 'reasoning');
        const second = run.calls[1]?.messages ?? [];
        assert.deepEqual(second.at(-1), redirectMessage('Try the index.'));
        if (terminal.type === 'result') {
          assert.equal(terminal.data.turns, 2);
          assert.ok(terminal.data.tokens.inputTokens >= USAGE.inputTokens, 'the judge’s tokens count');
        }
        assert.deepEqual(harness.errorLogs, []);
      } finally {
        await harness.close();
      }
    },
  );
});
