import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LocalToolRef } from '../../src/domain/tool-ref.ts';
import { turnBudget } from '../../src/engine/controls/turn-budget.ts';
import { ControlPipeline } from '../../src/engine/loop/control-pipeline.ts';
import type {
  FinalAnswer,
  HostTool,
  ReasoningProgress,
  RoundSummary,
  RunControl,
} from '../../src/engine/loop/run-control.ts';
import {
  assistantText,
  ofType,
  openLoopHarness,
  withoutDeltas,
  within,
  type LoggedEvent,
  type LoopHarness,
  type RunUnderTest,
} from '../support/turn-loop-harness.ts';

/**
 * The turn loop at its decision points, end to end on real parts (see turn-loop-harness.ts): each
 * test registers a small control of its own through the public ControlPipeline and reads the run's
 * log back from the store. The mock model echoes the last user message (`You said: …`), calls a tool
 * offered to it on `call <tool> {json}`, and reports tool results (`Tool <name> returned: …`).
 */

const LOOKUP: LocalToolRef = {
  kind: 'local',
  name: 'lookup',
  description: 'Looks a word up.',
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
};
const SEARCH: LocalToolRef = { kind: 'local', name: 'search', description: 'Searches the web.' };

const TEST_TIMEOUT = { timeout: 60_000 };

async function withHarness(test: (harness: LoopHarness) => Promise<void>): Promise<void> {
  const harness = await openLoopHarness();
  try {
    await test(harness);
    assert.deepEqual(harness.errorLogs, [], 'no run stopped unexpectedly');
  } finally {
    await harness.close();
  }
}

/** A host tool that reports what it was given; `runs` records each execution. */
function probeTool(name: string, runs: Array<{ args: Record<string, unknown>; turn: number }>): HostTool {
  return {
    name,
    description: `The ${name} host tool.`,
    inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
    execute: (args, { turn }) => {
      runs.push({ args, turn });
      return { type: 'text', value: `${name} saw ${String(args.n)}` };
    },
  };
}

/** The run ended with `result` success, and the run row records the same outcome. */
async function endsWithResult(run: RunUnderTest, text: string, turns: number): Promise<LoggedEvent[]> {
  const { terminal, events, run: row } = await within(run.ended, `the end of run ${run.runId}`);
  assert.equal(terminal.type, 'result');
  assert.equal(terminal.data.subtype, 'success');
  assert.equal(terminal.data.text, text);
  assert.equal(terminal.data.turns, turns);
  assert.deepEqual(events.at(-1), { seq: events.length, type: 'result', data: terminal.data });
  assert.equal(row.status, 'succeeded');
  assert.equal(row.finalText, text);
  assert.equal(row.turns, turns);
  return events;
}

function toolNames(run: RunUnderTest, call: number): string[] | undefined {
  return run.calls[call]?.tools?.map((tool) => tool.name);
}

describe('the turn loop at its decision points (real loop, store, bus and mock model)', () => {
  it(
    'beforeTurn disableTools: the request has tool choice none and the run ends with the model’s text (no local_tool_call)',
    TEST_TIMEOUT,
    () =>
      withHarness(async (harness) => {
        const prompt = 'call lookup {"q":"rome"}';
        const noTools: RunControl = { name: 'no_tools', beforeTurn: () => ({ disableTools: true }) };
        const run = await harness.start({ prompt, tools: [LOOKUP] }, new ControlPipeline([noTools]));
        const events = await endsWithResult(run, `You said: ${prompt}`, 1);

        assert.equal(run.calls.length, 1);
        assert.equal(run.calls[0]?.toolChoice, 'none');
        assert.deepEqual(toolNames(run, 0), ['lookup'], 'the tools stay declared on a tools-disabled turn');
        assert.deepEqual(withoutDeltas(events), ['assistant_message', 'result']);
        assert.deepEqual(ofType(events, 'assistant_message')[0]?.data, {
          text: `You said: ${prompt}`,
          turn: 0,
          finishReason: 'end_turn',
        });
      }),
  );

  it(
    'beforeTurn messages: appended to the conversation before the turn and kept for later turns',
    TEST_TIMEOUT,
    () =>
      withHarness(async (harness) => {
        const injected = { role: 'user' as const, content: 'call lookup {"q":"steered"}' };
        const asked: number[] = [];
        const steer: RunControl = {
          name: 'steer',
          beforeTurn: ({ turn }) => {
            asked.push(turn);
            return turn === 0 ? { messages: [injected] } : undefined;
          },
        };
        const run = await harness.start({ prompt: 'hello', tools: [LOOKUP] }, new ControlPipeline([steer]));

        // The model saw the injected message: it is what made it call the tool.
        const call = await run.waitFor('local_tool_call');
        assert.deepEqual(call.data.args, { q: 'steered' });
        assert.equal(await run.answer(call.data.toolUseId, { result: 'a steer', files: [] }), 'accepted');
        await endsWithResult(run, 'Tool lookup returned: a steer', 2);

        assert.deepEqual(asked, [0, 1]);
        assert.deepEqual(run.calls[0]?.messages, [{ role: 'user', content: 'hello' }, injected]);
        const later = run.calls[1]?.messages ?? [];
        assert.deepEqual(later.slice(0, 2), [{ role: 'user', content: 'hello' }, injected], 'kept, once');
        assert.deepEqual(
          later.map((message) => message.role),
          ['user', 'user', 'assistant', 'tool'],
        );
      }),
  );

  it(
    'beforeToolCall interception: the model gets the synthetic result, the client no local_tool_call for it, its event follows the turn’s assistant_message, and the round’s other calls still go to their executor',
    TEST_TIMEOUT,
    () =>
      withHarness(async (harness) => {
        const budget: RunControl = {
          name: 'search_budget',
          beforeToolCall: ({ call }) =>
            call.name === 'search'
              ? {
                  output: { type: 'error-text', value: 'search budget exhausted' },
                  event: {
                    type: 'tool_budget_exceeded',
                    data: { tool: 'search', maxCalls: 0, callIndex: 1 },
                  },
                }
              : undefined,
        };
        const run = await harness.start(
          { prompt: 'call search {"q":"a"} then call lookup {"q":"b"}', tools: [LOOKUP, SEARCH] },
          new ControlPipeline([budget]),
        );
        const published = await run.waitFor('local_tool_call');
        assert.equal(published.data.name, 'lookup');
        assert.equal(
          await run.answer(published.data.toolUseId, { result: 'b found', files: [] }),
          'accepted',
        );
        const events = await endsWithResult(
          run,
          'Tool search returned: search budget exhausted\nTool lookup returned: b found',
          2,
        );

        const [turn0, turn1] = ofType(events, 'assistant_message');
        const [searchCall, lookupCall] = turn0?.data.toolCalls ?? [];
        assert.equal(searchCall?.name, 'search');
        assert.equal(lookupCall?.name, 'lookup');
        assert.deepEqual(withoutDeltas(events), [
          'assistant_message',
          'tool_budget_exceeded',
          'local_tool_call',
          'local_tool_result_in',
          'assistant_message',
          'result',
        ]);
        const [exceeded] = ofType(events, 'tool_budget_exceeded');
        assert.deepEqual(exceeded?.data, { tool: 'search', maxCalls: 0, callIndex: 1 });
        assert.ok(exceeded && turn0 && exceeded.seq > turn0.seq, 'announced after the assistant_message');
        assert.deepEqual(
          ofType(events, 'local_tool_call').map((event) => event.data),
          [{ toolUseId: lookupCall?.id, name: 'lookup', args: { q: 'b' }, kind: 'local' }],
        );
        assert.deepEqual(ofType(events, 'local_tool_result_in')[0]?.data, {
          toolUseId: lookupCall?.id,
          output: 'b found',
        });
        assert.equal(turn1?.data.turn, 1);

        // The intercepted call was never a pending client call; the other was answered.
        const { toolCalls } = harness.repos;
        assert.equal(await toolCalls.findOne(run.runId, searchCall?.id ?? ''), undefined);
        assert.equal((await toolCalls.findOne(run.runId, lookupCall?.id ?? ''))?.status, 'answered');
        // Both results went back to the model, in the order of the calls.
        assert.deepEqual(run.calls[1]?.messages.at(-1), {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: searchCall?.id,
              toolName: 'search',
              output: { type: 'error-text', value: 'search budget exhausted' },
            },
            {
              type: 'tool-result',
              toolCallId: lookupCall?.id,
              toolName: 'lookup',
              output: { type: 'text', value: 'b found' },
            },
          ],
        });
      }),
  );

  it(
    'a host tool offered via offerHostTools and forced: executed in-process by the host executor, never published as local_tool_call, its output reaches the next turn',
    TEST_TIMEOUT,
    () =>
      withHarness(async (harness) => {
        const executed: Array<{ args: Record<string, unknown>; turn: number }> = [];
        const probe = probeTool('probe', executed);
        const forcing: RunControl = {
          name: 'forcing',
          hostTools: [probe],
          beforeTurn: ({ turn }) =>
            turn === 0 ? { offerHostTools: ['probe'], forceTool: 'probe' } : undefined,
        };
        // The declared client tool is asked for too; the forced choice leaves only the host tool.
        const run = await harness.start(
          { prompt: 'call lookup {"q":"x"} call probe {"n":7}', tools: [LOOKUP] },
          new ControlPipeline([forcing]),
        );
        const events = await endsWithResult(run, 'Tool probe returned: probe saw 7', 2);

        assert.deepEqual(toolNames(run, 0), ['lookup', 'probe']);
        assert.deepEqual(run.calls[0]?.toolChoice, { toolName: 'probe' });
        assert.deepEqual(toolNames(run, 1), ['lookup'], 'offered for the one turn only');
        assert.equal(run.calls[1]?.toolChoice, 'auto');
        assert.deepEqual(executed, [{ args: { n: 7 }, turn: 0 }]);

        assert.deepEqual(withoutDeltas(events), ['assistant_message', 'assistant_message', 'result']);
        const [turn0] = ofType(events, 'assistant_message');
        const probeCall = turn0?.data.toolCalls?.[0];
        assert.deepEqual(turn0?.data, {
          text: '',
          turn: 0,
          finishReason: 'tool_use',
          toolCalls: [{ id: probeCall?.id, name: 'probe', input: { n: 7 } }],
        });
        assert.equal(await harness.repos.toolCalls.findOne(run.runId, probeCall?.id ?? ''), undefined);
        assert.deepEqual(run.calls[1]?.messages.at(-1), {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: probeCall?.id,
              toolName: 'probe',
              output: { type: 'text', value: 'probe saw 7' },
            },
          ],
        });
      }),
  );

  it('afterRound sees each call’s output and whether it was intercepted', TEST_TIMEOUT, () =>
    withHarness(async (harness) => {
      const executed: Array<{ args: Record<string, unknown>; turn: number }> = [];
      const rounds: Array<Pick<RoundSummary, 'turn' | 'calls'>> = [];
      const watcher: RunControl = {
        name: 'watcher',
        hostTools: [probeTool('probe', executed), probeTool('blocked', executed)],
        beforeTurn: ({ turn }) => (turn === 0 ? { offerHostTools: ['probe', 'blocked'] } : undefined),
        beforeToolCall: ({ call }) =>
          call.name === 'blocked' ? { output: { type: 'error-text', value: 'not now' } } : undefined,
        afterRound: ({ turn, calls }) => void rounds.push({ turn, calls }),
      };
      const run = await harness.start(
        { prompt: 'call probe {"n":1} call blocked {"n":2}' },
        new ControlPipeline([watcher]),
      );
      const events = await endsWithResult(
        run,
        'Tool probe returned: probe saw 1\nTool blocked returned: not now',
        2,
      );

      const [probeCall, blockedCall] = ofType(events, 'assistant_message')[0]?.data.toolCalls ?? [];
      assert.deepEqual(rounds, [
        {
          turn: 0,
          calls: [
            {
              call: { id: probeCall?.id, name: 'probe', input: { n: 1 } },
              intercepted: false,
              output: { type: 'text', value: 'probe saw 1' },
            },
            {
              call: { id: blockedCall?.id, name: 'blocked', input: { n: 2 } },
              intercepted: true,
              output: { type: 'error-text', value: 'not now' },
            },
          ],
        },
      ]);
      assert.deepEqual(executed, [{ args: { n: 1 }, turn: 0 }], 'the intercepted call did not execute');
    }),
  );

  it(
    'beforeFinish { continueWith } rejects a premature final answer: another turn runs with those messages; accept ends the run with result',
    TEST_TIMEOUT,
    () =>
      withHarness(async (harness) => {
        const finals: Array<Omit<FinalAnswer, 'emit'>> = [];
        const nudge = { role: 'user' as const, content: 'Not yet: check again' };
        const guard: RunControl = {
          name: 'guard',
          beforeFinish: ({ turn, text, finishReason, toolsCallable }) => {
            finals.push({ turn, text, finishReason, toolsCallable });
            return finals.length === 1 ? { continueWith: [nudge] } : 'accept';
          },
        };
        const run = await harness.start({ prompt: 'hello' }, new ControlPipeline([guard]));
        const events = await endsWithResult(run, 'You said: Not yet: check again', 2);

        assert.deepEqual(finals, [
          { turn: 0, text: 'You said: hello', finishReason: 'end_turn', toolsCallable: false },
          { turn: 1, text: 'You said: Not yet: check again', finishReason: 'end_turn', toolsCallable: false },
        ]);
        assert.deepEqual(withoutDeltas(events), ['assistant_message', 'assistant_message', 'result']);
        assert.deepEqual(
          ofType(events, 'assistant_message').map((event) => event.data),
          [
            { text: 'You said: hello', turn: 0, finishReason: 'end_turn' },
            { text: 'You said: Not yet: check again', turn: 1, finishReason: 'end_turn' },
          ],
        );
        // The rejected answer stays in the conversation, followed by the control's messages.
        const second = run.calls[1]?.messages ?? [];
        assert.equal(second.length, 3);
        assert.deepEqual(second[0], { role: 'user', content: 'hello' });
        assert.equal(assistantText(second[1]), 'You said: hello');
        assert.deepEqual(second[2], nudge);
      }),
  );

  it(
    'onReasoning abort cuts the turn: with no text yet there is no assistant_message, the invocation counts in turns, and the loop goes on to the next turn',
    TEST_TIMEOUT,
    () =>
      withHarness(async (harness) => {
        const progress: Array<Pick<ReasoningProgress, 'turn' | 'chars'>> = [];
        const supervisor: RunControl = {
          name: 'supervisor',
          onReasoning: ({ turn, chars }) => {
            progress.push({ turn, chars });
            return turn === 0 ? 'abort' : 'continue';
          },
        };
        const run = await harness.start(
          { prompt: 'hello', reasoningLevel: 50 },
          new ControlPipeline([supervisor]),
        );
        const events = await endsWithResult(run, 'You said: hello', 2);

        assert.equal(run.calls.length, 2);
        assert.deepEqual(run.calls[1]?.messages, run.calls[0]?.messages, 'the cut turn added nothing');
        assert.deepEqual(withoutDeltas(events), ['assistant_message', 'result']);
        assert.deepEqual(ofType(events, 'assistant_message')[0]?.data, {
          text: 'You said: hello',
          turn: 1,
          finishReason: 'end_turn',
        });
        assert.deepEqual(progress[0], { turn: 0, chars: 'The '.length }, 'cut at the first thought');
        const turn1 = progress.filter((entry) => entry.turn === 1).map((entry) => entry.chars);
        assert.ok(turn1.length > 1, 'the next turn streamed its thoughts to the end');
        assert.deepEqual(
          turn1,
          [...turn1].sort((a, b) => a - b),
          'chars grow within a span',
        );
        assert.ok(
          ofType(events, 'thinking_delta').length > turn1.length,
          'the cut turn’s thoughts streamed too',
        );
      }),
  );

  it(
    'onReasoning abort decided later, once text streamed: the partial text becomes the turn’s assistant_message (no finish reason) and the loop goes on',
    TEST_TIMEOUT,
    () =>
      withHarness(async (harness) => {
        let decide!: (verdict: 'abort') => void;
        const review = new Promise<'abort'>((resolve) => (decide = resolve));
        const supervisor: RunControl = {
          name: 'supervisor',
          onReasoning: ({ turn }) => (turn === 0 ? review : 'continue'),
        };
        const words = Array.from({ length: 40 }, (_, index) => `word${index}`).join(' ');
        const full = `You said: ${words}`;
        // `slow…` pauses between chunks: the review decides while the reply is still streaming.
        const run = await harness.start(
          { prompt: words, reasoningLevel: 50, vendorModelId: 'slow-echo' },
          new ControlPipeline([supervisor]),
        );
        await run.waitFor('assistant_delta');
        decide('abort');
        const events = await endsWithResult(run, full, 2);

        const [cut, next] = ofType(events, 'assistant_message');
        assert.ok(cut && next);
        const partial = ofType(events, 'assistant_delta')
          .filter((event) => event.seq < cut.seq)
          .map((event) => event.data.text)
          .join('');
        assert.deepEqual(cut.data, { text: partial, turn: 0, finishReason: null });
        assert.ok(partial !== '' && partial.length < full.length && full.startsWith(partial), partial);
        assert.deepEqual(next.data, { text: full, turn: 1, finishReason: 'end_turn' });
        assert.deepEqual(withoutDeltas(events), ['assistant_message', 'assistant_message', 'result']);
        assert.equal(run.calls.length, 2);
      }),
  );

  it(
    'budgets.maxToolTurns: the turn-budget control disables tools after N tool turns and the run ends with the reply',
    TEST_TIMEOUT,
    () =>
      withHarness(async (harness) => {
        // Every later turn asks for the tool again, so only the budget stops the calls.
        const insist: RunControl = {
          name: 'insist',
          beforeTurn: ({ turn }) =>
            turn === 0
              ? undefined
              : { messages: [{ role: 'user', content: `call lookup {"q":"t${turn}"}` }] },
        };
        const run = await harness.start(
          { prompt: 'call lookup {"q":"t0"}', tools: [LOOKUP], budgets: { maxToolTurns: 2 } },
          new ControlPipeline([turnBudget(2), insist]),
        );
        for (const q of ['t0', 't1']) {
          const call = await run.waitFor('local_tool_call', (event) => event.data.args.q === q);
          assert.equal(await run.answer(call.data.toolUseId, { result: `${q} done`, files: [] }), 'accepted');
        }
        const events = await endsWithResult(run, 'You said: call lookup {"q":"t2"}', 3);

        assert.deepEqual(
          run.calls.map((call) => call.toolChoice),
          ['auto', 'auto', 'none'],
        );
        assert.deepEqual(toolNames(run, 2), ['lookup']);
        assert.deepEqual(
          ofType(events, 'local_tool_call').map((event) => event.data.args),
          [{ q: 't0' }, { q: 't1' }],
        );
        assert.deepEqual(
          ofType(events, 'assistant_message').map((event) => [event.data.turn, event.data.finishReason]),
          [
            [0, 'tool_use'],
            [1, 'tool_use'],
            [2, 'end_turn'],
          ],
        );
      }),
  );
});
