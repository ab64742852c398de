import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { RecordedRequest, ScriptedTurn } from '../fakes/scripted-reply.ts';
import { ofType, types, type FakeApi } from '../support/run-fixture.ts';
import type { SseFrame } from '../support/sse-client.ts';
import type { RunWatch } from '../support/stream-watch.ts';
import { startSessionFixture, type SessionFixture } from '../sessions/session-support.ts';

/**
 * `loopDetection` and `toolBudgets` over HTTP, on each wire protocol: a fake provider plays a model
 * that repeats itself, and the test reads the stream and what the provider was sent next. The
 * server tool is the `current_time` plugin (runs on the service, needs no network).
 */

const CLOCK = { kind: 'svc_plugin', name: 'current_time' };
const LOOKUP = {
  kind: 'local',
  name: 'lookup',
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
};
const RECALL = {
  kind: 'local',
  name: 'recall',
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
};

/** A turn calling current_time for a zone (the same zone twice is the same call). */
const clockCall = (id: string, timeZone = 'UTC'): ScriptedTurn => ({
  toolCalls: [{ id, name: 'current_time', input: { timeZone } }],
});
const final = (text = 'Final answer.'): ScriptedTurn => ({ text: [text] });

const dataOf = (frames: readonly SseFrame[], type: string) =>
  ofType(frames, type).map((frame) => frame.data.data as Record<string, unknown>);
const toolUseIds = (frames: readonly SseFrame[], type: string) =>
  dataOf(frames, type).map((data) => data.toolUseId);

/* The two wires, read as one: tool choice, tool results and user texts of a recorded request. */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider wire JSON
type Wire = Record<string, any>;

function bodyOf(request: RecordedRequest | undefined): Wire {
  if (!request) throw new Error('no such provider request');
  return request.body as Wire;
}

function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Wire[])
    .filter((part) => part.type === 'text')
    .map((part) => String(part.text))
    .join('');
}

/** `auto`, `none`, … as the request asked (`undefined` when it sent no tool choice). */
function toolChoiceOf(api: FakeApi, request: RecordedRequest | undefined): string | undefined {
  const choice: unknown = bodyOf(request).tool_choice;
  if (api === 'anthropic-messages') return (choice as Wire | undefined)?.type;
  return typeof choice === 'string' ? choice : (choice as Wire | undefined)?.type;
}

/** Each tool result the request carries, by call id, as text. */
function toolResultsOf(api: FakeApi, request: RecordedRequest | undefined): Map<string, string> {
  const messages = bodyOf(request).messages as Wire[];
  if (api === 'anthropic-messages') {
    return new Map(
      messages
        .flatMap((message) => (Array.isArray(message.content) ? (message.content as Wire[]) : []))
        .filter((block) => block.type === 'tool_result')
        .map((block) => [String(block.tool_use_id), partsText(block.content)]),
    );
  }
  return new Map(
    messages
      .filter((message) => message.role === 'tool')
      .map((message) => [String(message.tool_call_id), partsText(message.content)]),
  );
}

/** The text of every user message of the request (tool results left out), in order. */
function userTextsOf(request: RecordedRequest | undefined): string[] {
  return (bodyOf(request).messages as Wire[])
    .filter((message) => message.role === 'user')
    .map((message) => partsText(message.content))
    .filter((text) => text !== '');
}

const API_CASES: readonly FakeApi[] = ['openai-chat', 'anthropic-messages'];

for (const api of API_CASES) {
  describe(`loopDetection and toolBudgets over ${api}`, { timeout: 90_000 }, () => {
    let fixture: SessionFixture;
    before(async () => {
      fixture = await startSessionFixture(api);
    });
    after(() => fixture.close());
    afterEach(() => fixture.cleanUp());

    /** Answers the run's local calls with these ids as each comes; resolves with the frames to the end. */
    async function answering(run: RunWatch, ids: readonly string[]): Promise<SseFrame[]> {
      for (const id of ids) {
        await run.waitFor(
          (frame) => frame.data.type === 'local_tool_call' && frame.data.data.toolUseId === id,
          `the local_tool_call ${id}`,
        );
        const posted = await fixture.postToolResult(run.runId, { toolUseId: id, result: `answer ${id}` });
        assert.equal(posted.status, 200, JSON.stringify(posted.body));
      }
      return run.ended;
    }

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

    it('loopDetection false: identical batches all run, no loop_detected', async () => {
      fixture.fake.enqueue(...['d1', 'd2', 'd3', 'd4'].map((id) => clockCall(id)), final());
      const { frames } = await fixture.runToEnd({
        systemPrompt: 's',
        prompt: 'time?',
        tools: [CLOCK],
        loopDetection: false,
      });
      assert.equal(types(frames).at(-1), 'result');
      assert.deepEqual(dataOf(frames, 'loop_detected'), []);
      assert.deepEqual(toolUseIds(frames, 'tool_call'), ['d1', 'd2', 'd3', 'd4']);
      assert.ok(fixture.fake.requests.every((request) => toolChoiceOf(api, request) === 'auto'));
    });

    it('loopDetection thresholds: consecutiveThreshold 2 and hardCutoffThreshold 3', async () => {
      fixture.fake.enqueue(clockCall('e1'), clockCall('e2'), clockCall('e3'), final());
      const { frames } = await fixture.runToEnd({
        systemPrompt: 's',
        prompt: 'time?',
        tools: [CLOCK],
        loopDetection: { consecutiveThreshold: 2, hardCutoffThreshold: 3 },
      });
      assert.equal(types(frames).at(-1), 'result');
      assert.deepEqual(dataOf(frames, 'loop_detected'), [
        { consecutiveCount: 2, hardCutoff: false, tools: ['current_time'] },
        { consecutiveCount: 3, hardCutoff: true, tools: ['current_time'] },
      ]);
      assert.deepEqual(toolUseIds(frames, 'tool_call'), ['e1']);
      assert.deepEqual(
        fixture.fake.requests.map((request) => toolChoiceOf(api, request)),
        ['auto', 'auto', 'auto', 'none'],
      );
    });

    it('toolBudgets: the attempt past maxCalls gets the budget-spent result and tool_budget_exceeded, and never runs', async () => {
      fixture.fake.enqueue(clockCall('f1', 'Asia/Tokyo'), clockCall('f2', 'Europe/Paris'), final());
      const { frames } = await fixture.runToEnd({
        systemPrompt: 's',
        prompt: 'time?',
        tools: [CLOCK],
        toolBudgets: { current_time: { maxCalls: 1 } },
      });
      assert.equal(types(frames).at(-1), 'result');
      assert.deepEqual(dataOf(frames, 'tool_budget_exceeded'), [
        { tool: 'current_time', maxCalls: 1, callIndex: 2 },
      ]);
      assert.deepEqual(toolUseIds(frames, 'tool_call'), ['f1']);
      assert.deepEqual(toolUseIds(frames, 'tool_result'), ['f1']);
      assert.match(
        toolResultsOf(api, fixture.fake.requests[2]).get('f2') ?? '',
        /budget for current_time \(1 call\) is spent/,
      );
    });

    it('toolBudgets maxCalls 0 disables a local tool: no local_tool_call, the model gets the budget-spent result', async () => {
      fixture.fake.enqueue(
        { toolCalls: [{ id: 'g1', name: 'lookup', input: { q: 'x' } }] },
        final('Without lookup.'),
      );
      const { frames } = await fixture.runToEnd({
        systemPrompt: 's',
        prompt: 'look it up',
        tools: [LOOKUP],
        toolBudgets: { lookup: { maxCalls: 0 } },
      });
      assert.equal(frames.at(-1)?.data.data.text, 'Without lookup.');
      assert.deepEqual(ofType(frames, 'local_tool_call'), []);
      assert.deepEqual(dataOf(frames, 'tool_budget_exceeded'), [
        { tool: 'lookup', maxCalls: 0, callIndex: 1 },
      ]);
      assert.match(toolResultsOf(api, fixture.fake.requests[1]).get('g1') ?? '', /budget for lookup/);
    });

    const recallTurns = () =>
      ['h1', 'h2', 'h3', 'h4', 'h5'].map((id, index): ScriptedTurn => ({
        toolCalls: [{ id, name: 'recall', input: { q: `q${index}` } }],
      }));

    it('toolBudgets omitted: the default cap applies (recall: the 5th call is intercepted)', async () => {
      fixture.fake.enqueue(...recallTurns(), final());
      const run = await fixture.startRun({ systemPrompt: 's', prompt: 'remember?', tools: [RECALL] });
      const frames = await answering(run, ['h1', 'h2', 'h3', 'h4']);
      assert.equal(types(frames).at(-1), 'result');
      assert.deepEqual(toolUseIds(frames, 'local_tool_call'), ['h1', 'h2', 'h3', 'h4']);
      assert.deepEqual(dataOf(frames, 'tool_budget_exceeded'), [
        { tool: 'recall', maxCalls: 4, callIndex: 5 },
      ]);
    });

    it('toolBudgets {}: no default cap (recall is called 5 times)', async () => {
      fixture.fake.enqueue(...recallTurns(), final());
      const run = await fixture.startRun({
        systemPrompt: 's',
        prompt: 'remember?',
        tools: [RECALL],
        toolBudgets: {},
      });
      const frames = await answering(run, ['h1', 'h2', 'h3', 'h4', 'h5']);
      assert.equal(types(frames).at(-1), 'result');
      assert.deepEqual(toolUseIds(frames, 'local_tool_call'), ['h1', 'h2', 'h3', 'h4', 'h5']);
      assert.deepEqual(dataOf(frames, 'tool_budget_exceeded'), []);
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
