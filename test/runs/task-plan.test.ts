import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { RecordedRequest } from '../fakes/scripted-reply.ts';
import { ofType, types, type FakeApi } from '../support/run-fixture.ts';
import type { SseFrame } from '../support/sse-client.ts';
import { startSessionFixture, type SessionFixture } from '../sessions/session-support.ts';
import { deferred } from '../support/waits.ts';
import { assertHostCallsInternal, listedToolCalls } from './host-call-visibility.ts';

/**
 * The `plan` run control (task plans) over HTTP, against fake providers speaking the real wire
 * protocols: the wiring (what the provider is offered, what the client's stream carries, the
 * snapshot, plans a planner drafts, the session's default against a message's override). The rules
 * (mode required, plan-only runs with steps, plan-only beside outputSchema) are tested on the turn
 * loop, in test/engine/control-rules/task-plan.test.ts.
 */

const APIS: readonly FakeApi[] = ['openai-chat', 'anthropic-messages'];

const LOOKUP = {
  kind: 'local',
  name: 'lookup',
  description: 'Looks a word up.',
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
};

const ZERO_TOKENS = { inputTokens: 0, cachedTokens: 0, reasoningTokens: 0, outputTokens: 0 };

/** What the model is told before its first turn in mode required (in the request's last messages). */
const REQUIRED_NOTICE = '[task plan] This run requires a task plan';

/** The tool names a request offers, on either wire (`function.name` on OpenAI Chat, `name` on Anthropic). */
function offeredTools(request: RecordedRequest | undefined): string[] {
  const body = request?.body as { tools?: Array<{ name?: string; function?: { name: string } }> } | undefined;
  return (body?.tools ?? []).map((tool) => tool.function?.name ?? tool.name ?? '?').sort();
}

/** Whether the request carries the text anywhere (a message, a tool result, a description). */
function carries(request: RecordedRequest | undefined, text: string): boolean {
  return (request?.rawBody ?? '').includes(JSON.stringify(text).slice(1, -1));
}

const withoutDeltas = (frames: readonly SseFrame[]) =>
  types([...frames]).filter((type) => type !== 'assistant_delta' && type !== 'thinking_delta');

/** The data of the run's last frame, its terminal event. */
function terminalData(frames: readonly SseFrame[]) {
  const data = frames.at(-1)?.data.data;
  assert.ok(data, 'the run ended');
  return data;
}

const planFrames = (frames: readonly SseFrame[]) =>
  ofType(frames, 'task_plan').map((frame) => frame.data.data);

/** One turn calling `update_task_plan` and then `lookup`, in that order. */
const planAndLookup = {
  toolCalls: [
    {
      id: 'call_plan_1',
      name: 'update_task_plan',
      input: { steps: [{ title: 'Look up a', status: 'in_progress' }] },
    },
    { id: 'call_lookup_1', name: 'lookup', input: { q: 'a' } },
  ],
};

for (const api of APIS) {
  describe(`the plan control over HTTP (${api})`, { timeout: 60_000 }, () => {
    let fixture: SessionFixture;
    before(async () => {
      fixture = await startSessionFixture(api);
    });
    after(() => fixture.close());
    afterEach(() => fixture.cleanUp());

    it('the provider request offers update_task_plan when plan is true, and not when plan is omitted or false', async () => {
      fixture.fake.enqueue({ text: ['ok'] });
      for (const plan of [true, undefined, false]) {
        const { frames } = await fixture.runToEnd({
          systemPrompt: 's',
          prompt: 'hi',
          tools: [LOOKUP],
          ...(plan !== undefined && { plan }),
        });
        assert.equal(types(frames).at(-1), 'result');
      }
      assert.deepEqual(fixture.fake.requests.map(offeredTools), [
        ['lookup', 'update_task_plan'],
        ['lookup'],
        ['lookup'],
      ]);
    });

    it('the model calling update_task_plan produces task_plan v2 events on the stream, no local_tool_call, and gets the checklist back', async () => {
      fixture.fake.enqueue(
        {
          toolCalls: [
            {
              id: 'call_plan_1',
              name: 'update_task_plan',
              input: {
                brief: 'Plan a trip',
                steps: [
                  { title: 'Book flight', status: 'in_progress' },
                  { title: 'Book hotel', status: 'pending' },
                ],
              },
            },
          ],
        },
        {
          toolCalls: [
            {
              id: 'call_plan_2',
              name: 'update_task_plan',
              input: {
                steps: [
                  { id: 's1', title: 'Book flight', status: 'done' },
                  { id: 's2', title: 'Book hotel', status: 'in_progress' },
                ],
              },
            },
          ],
        },
        { text: ['Booked.'] },
      );
      const { frames } = await fixture.runToEnd({ systemPrompt: 's', prompt: 'trip', plan: true });

      assert.deepEqual(withoutDeltas(frames), [
        'assistant_message',
        'task_plan',
        'assistant_message',
        'task_plan',
        'task_plan',
        'assistant_message',
        'result',
      ]);
      assert.equal(frames.at(-1)?.data.data.text, 'Booked.');
      assert.equal(ofType(frames, 'local_tool_call').length, 0, 'a host tool is never the client’s');

      const events = planFrames(frames);
      const [created] = events;
      assert.match(created?.planId, /^plan_/);
      assert.deepEqual(
        events.map((event) => [
          event.v,
          event.planId,
          event.revision,
          event.mode,
          event.source,
          event.transition,
          event.transitionIndex,
          event.transitionCount,
        ]),
        [
          [2, created?.planId, 1, 'auto', 'agent', { kind: 'created', stepId: null }, 0, 1],
          [2, created?.planId, 2, 'auto', 'agent', { kind: 'step_done', stepId: 's1' }, 0, 2],
          [2, created?.planId, 2, 'auto', 'agent', { kind: 'step_in_progress', stepId: 's2' }, 1, 2],
        ],
      );
      const steps = [
        { id: 's1', title: 'Book flight', status: 'done' },
        { id: 's2', title: 'Book hotel', status: 'in_progress' },
      ];
      for (const event of events.slice(1)) {
        assert.equal(event.brief, 'Plan a trip');
        assert.deepEqual(event.steps, steps, 'mirrored at the top level');
        assert.deepEqual(event.plan, {
          v: 2,
          planId: created?.planId,
          revision: 2,
          mode: 'auto',
          brief: 'Plan a trip',
          steps,
        });
      }
      const seqs = ofType(frames, 'task_plan').map((frame) => frame.data.seq);
      assert.ok((seqs[1] ?? 0) < (seqs[2] ?? 0), 'transitions of one update ordered by seq');

      assert.ok(carries(fixture.fake.requests[1], 'Task plan updated (revision 1).'));
      assert.ok(carries(fixture.fake.requests[2], 's1 [done] Book flight'));
    });

    it('host tool calls are internal: update_task_plan beside a client call: only the client call is listed, published and pending, and the model gets both results', async () => {
      fixture.fake.enqueue(planAndLookup, { text: ['Done.'] });
      const run = await fixture.startRun({
        systemPrompt: 's',
        prompt: 'find a',
        tools: [LOOKUP],
        plan: true,
      });
      const call = await run.waitForType('local_tool_call');
      assert.equal(call.data.data.toolUseId, 'call_lookup_1');
      const waiting = await fixture.runSnapshot(run.runId);
      assert.deepEqual(waiting.body.pendingToolCalls, [
        { toolUseId: 'call_lookup_1', name: 'lookup', kind: 'local' },
      ]);
      const posted = await fixture.postToolResult(run.runId, {
        toolUseId: 'call_lookup_1',
        result: 'a letter',
      });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      const frames = await run.ended;

      assert.deepEqual(withoutDeltas(frames), [
        'assistant_message',
        'task_plan',
        'local_tool_call',
        'local_tool_result_in',
        'assistant_message',
        'result',
      ]);
      const [first] = ofType(frames, 'assistant_message');
      assert.deepEqual(first?.data.data.toolCalls, [
        { id: 'call_lookup_1', name: 'lookup', input: { q: 'a' } },
      ]);
      assert.deepEqual(listedToolCalls(frames), [['lookup'], []]);
      assertHostCallsInternal(frames, ['call_plan_1']);
      const next = fixture.fake.requests[1];
      assert.ok(carries(next, 'Task plan updated (revision 1).'), 'the host result reaches the model');
      assert.ok(carries(next, 'a letter'), 'and so does the client result');
    });

    it('host tool calls are internal: a later message run of the session replays the retained client call, never update_task_plan', async () => {
      const sessionId = await fixture.newSession({
        systemPrompt: 's',
        tools: [{ ...LOOKUP, retain: true }],
      });
      fixture.fake.enqueue(planAndLookup, { text: ['Done.'] }, { text: ['Again.'] });
      const first = await fixture.startMessage(sessionId, { prompt: 'find a', plan: true });
      await first.waitForType('local_tool_call');
      const posted = await fixture.postToolResult(first.runId, {
        toolUseId: 'call_lookup_1',
        result: 'a letter',
      });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      assertHostCallsInternal(await first.ended, ['call_plan_1']);
      const second = await fixture.sendMessage(sessionId, { prompt: 'again' });
      assert.equal(types(second.frames).at(-1), 'result');

      const later = fixture.fake.requests[2];
      assert.ok(carries(later, 'a letter'), 'the retained client call is replayed');
      assert.ok(carries(later, 'call_lookup_1'));
      assert.ok(!carries(later, 'update_task_plan'), 'no trace of the host call');
      assert.ok(!carries(later, 'call_plan_1'));
    });

    it('the run snapshot carries the current task plan once known; a run without plan has none', async () => {
      const released = deferred();
      fixture.fake.enqueue(
        {
          toolCalls: [
            {
              id: 'call_plan_1',
              name: 'update_task_plan',
              input: { brief: 'Find a', steps: [{ title: 'Look up a', status: 'in_progress' }] },
            },
          ],
        },
        { text: ['Done.'], holdUntil: released.promise },
      );
      const run = await fixture.startRun({ systemPrompt: 's', prompt: 'find a', plan: true });
      const announced = await run.waitForType('task_plan');
      const during = await fixture.runSnapshot(run.runId);
      assert.equal(during.status, 200);
      assert.deepEqual(during.body.plan, announced.data.data.plan);
      assert.deepEqual(
        [during.body.plan?.revision, during.body.plan?.brief, during.body.plan?.steps],
        [1, 'Find a', [{ id: 's1', title: 'Look up a', status: 'in_progress' }]],
      );
      released.resolve();
      const frames = await run.ended;
      assert.deepEqual((await fixture.runSnapshot(run.runId)).body.plan, planFrames(frames).at(-1)?.plan);

      const planOnly = await fixture.runToEnd({
        systemPrompt: 's',
        prompt: 'trip',
        plan: { planOnly: true, steps: ['Book flight'] },
      });
      const planned = (await fixture.runSnapshot(planOnly.runId)).body.plan;
      assert.deepEqual(planned?.steps, [{ id: 's1', title: 'Book flight', status: 'pending' }]);

      fixture.fake.enqueue({ text: ['ok'] });
      const plain = await fixture.runToEnd({ systemPrompt: 's', prompt: 'hi' });
      assert.equal('plan' in (await fixture.runSnapshot(plain.runId)).body, false);
    });

    it('a session created with plan required applies it to its message runs; a message’s override applies to that run only', async () => {
      fixture.fake.enqueue({ text: ['ok'] });
      const sessionId = await fixture.newSession({ systemPrompt: 's', plan: 'required' });
      for (const message of [{ prompt: 'one' }, { prompt: 'two', plan: true }, { prompt: 'three' }]) {
        const { frames } = await fixture.sendMessage(sessionId, message);
        assert.equal(types(frames).at(-1), 'result');
      }
      const requests = fixture.fake.requests;
      assert.deepEqual(requests.map(offeredTools), [
        ['update_task_plan'],
        ['update_task_plan'],
        ['update_task_plan'],
      ]);
      assert.deepEqual(
        requests.map((request) => carries(request, REQUIRED_NOTICE)),
        [true, false, true],
        'required, then auto for the overriding message, then required again',
      );
    });

    it('a session without plan: a message asking for one gets it for that run only', async () => {
      fixture.fake.enqueue({ text: ['ok'] });
      const sessionId = await fixture.newSession({ systemPrompt: 's' });
      for (const message of [{ prompt: 'one', plan: true }, { prompt: 'two' }]) {
        const { frames } = await fixture.sendMessage(sessionId, message);
        assert.equal(types(frames).at(-1), 'result');
      }
      assert.deepEqual(fixture.fake.requests.map(offeredTools), [['update_task_plan'], []]);
    });

    it('planOnly without steps: one provider request without tools asks for the plan; the JSON reply is the plan and the result’s tokens are zero', async () => {
      fixture.fake.enqueue({
        text: ['```json\n{"brief": "Plan a trip", "steps": ["Book flight", "Book hotel"]}\n```'],
      });
      const { frames } = await fixture.runToEnd({
        systemPrompt: 'You plan trips.',
        prompt: 'a trip to Rome',
        tools: [LOOKUP],
        plan: { planOnly: true },
      });

      const { requests } = fixture.fake;
      assert.equal(requests.length, 1);
      assert.deepEqual(offeredTools(requests[0]), []);
      assert.ok(carries(requests[0], 'a trip to Rome'), 'the task is the run’s input');
      assert.ok(carries(requests[0], 'You plan trips.'), 'with the run’s system prompt');
      assert.ok(carries(requests[0], 'Do not carry out the task above yet: plan it.'));
      assert.deepEqual(withoutDeltas(frames), ['task_plan', 'result']);
      const [event] = planFrames(frames);
      assert.deepEqual([event?.source, event?.transition], ['planner', { kind: 'created', stepId: null }]);
      const result = terminalData(frames);
      assert.deepEqual(result.plan, {
        brief: 'Plan a trip',
        steps: [
          { title: 'Book flight', status: 'pending' },
          { title: 'Book hotel', status: 'pending' },
        ],
      });
      assert.equal(result.text, '1. Book flight\n2. Book hotel');
      assert.equal(result.turns, 0);
      assert.deepEqual(result.tokens, ZERO_TOKENS, 'the planner’s tokens are metered as task_planning');
    });

    it('planOnly without steps: a plan with no steps is the brief alone', async () => {
      fixture.fake.enqueue({ text: ['{"brief": "Answer the greeting", "steps": []}'] });
      const { frames } = await fixture.runToEnd({
        systemPrompt: 's',
        prompt: 'hi',
        plan: { planOnly: true },
      });

      const result = terminalData(frames);
      assert.deepEqual(result.plan, { brief: 'Answer the greeting', steps: [] });
      assert.equal(result.text, 'Answer the greeting');
      assert.deepEqual(planFrames(frames)[0]?.steps, []);
    });

    it('planOnly without steps: a reply that is no plan ends the run with an error of class unknown', async () => {
      fixture.fake.enqueue({ text: ['Sure, I will book it.'] });
      const { frames } = await fixture.runToEnd({
        systemPrompt: 's',
        prompt: 'hi',
        plan: { planOnly: true },
      });

      assert.deepEqual(withoutDeltas(frames), ['error']);
      assert.equal(frames.at(-1)?.data.data.errorClass, 'unknown');
    });

    it('a session message with planOnly appends nothing to the session’s history', async () => {
      fixture.fake.enqueue({ text: ['ok'] });
      const sessionId = await fixture.newSession({ systemPrompt: 's' });
      await fixture.sendMessage(sessionId, { prompt: 'one' });
      assert.equal((await fixture.replay(sessionId)).body.total, 2);
      for (const plan of [{ planOnly: true, steps: ['a', 'b'] }, { planOnly: true }]) {
        fixture.fake.enqueue({ text: ['{"brief": "b", "steps": ["x"]}'] });
        const { frames } = await fixture.sendMessage(sessionId, { prompt: 'plan this', plan });
        assert.equal(frames.at(-1)?.data.data.subtype, 'success');
        assert.ok(frames.at(-1)?.data.data.plan);
      }
      assert.equal((await fixture.replay(sessionId)).body.total, 2, 'the plans are not appended');
    });
  });
}
