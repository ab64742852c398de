import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { RecordedRequest, ScriptedTurn, ScriptedUsage } from '../fakes/scripted-reply.ts';
import { ofType, types, type FakeApi } from '../support/run-fixture.ts';
import type { SseFrame } from '../support/sse-client.ts';
import { startSessionFixture, type SessionFixture } from '../sessions/session-support.ts';
import { userTextsOf } from '../support/wire-requests.ts';

/**
 * `supervisor` over HTTP, on each wire protocol. The judge runs on the workspace default model, the
 * fake provider: a review is one more provider request, told apart by the judge's system prompt, and
 * the test scripts its verdict as a text reply. The wiring is checked here; the rules (redirect,
 * finalize, interval, a reply that is no verdict) on the turn loop, in
 * test/engine/control-rules/supervisor.test.ts.
 */

const CLOCK = { kind: 'svc_plugin', name: 'current_time' };
const JUDGE_MARK = 'You supervise an AI agent';

const clockCall = (id: string, usage?: ScriptedUsage): ScriptedTurn => ({
  toolCalls: [{ id, name: 'current_time', input: { timeZone: 'UTC' } }],
  ...(usage && { usage }),
});
const final = (text: string, usage?: ScriptedUsage): ScriptedTurn => ({
  text: [text],
  ...(usage && { usage }),
});
/** The judge's reply: a verdict as JSON, in a sentence of prose as models often give it. */
const verdict = (fields: Record<string, string>, usage?: ScriptedUsage): ScriptedTurn => ({
  text: ['My verdict: ', JSON.stringify(fields)],
  ...(usage && { usage }),
});

/** How many SSE events each fake sends up to and including the first thought. */
const THROUGH_FIRST_THOUGHT: Record<string, number> = { 'openai-chat': 1, 'anthropic-messages': 4 };

const dataOf = (frames: readonly SseFrame[], type: string) =>
  ofType(frames, type).map((frame) => frame.data.data as Record<string, unknown>);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider wire JSON
type Wire = Record<string, any>;

const bodyOf = (request: RecordedRequest | undefined): Wire => {
  if (!request) throw new Error('no such provider request');
  return request.body as Wire;
};
const isJudge = (request: RecordedRequest | undefined) => request?.rawBody.includes(JUDGE_MARK) ?? false;

for (const api of ['openai-chat', 'anthropic-messages'] as const satisfies readonly FakeApi[]) {
  describe(`supervisor over ${api}`, { timeout: 90_000 }, () => {
    let fixture: SessionFixture;
    before(async () => {
      fixture = await startSessionFixture(api);
    });
    after(() => fixture.close());
    afterEach(() => fixture.cleanUp());

    it('on_track at a turn boundary: the run goes on; a supervisor event with every field; the judge’s tokens count in the run’s usage', async () => {
      fixture.fake.enqueue(
        clockCall('c1', { inputTokens: 100, outputTokens: 10 }),
        verdict(
          { action: 'on_track', reason: 'Checking the clock is the way.' },
          { inputTokens: 300, outputTokens: 20 },
        ),
        final('It is noon.', { inputTokens: 150, outputTokens: 15 }),
      );
      const { frames } = await fixture.runToEnd({
        systemPrompt: 's',
        prompt: 'What time is it?',
        tools: [CLOCK],
        supervisor: { interval: 1 },
      });

      const result = frames.at(-1)?.data.data;
      assert.equal(types(frames).at(-1), 'result');
      assert.equal(result?.text, 'It is noon.');
      const { id, provider, vendorModelId } = result?.model ?? {};
      assert.deepEqual(dataOf(frames, 'supervisor'), [
        {
          action: 'on_track',
          reason: 'Checking the clock is the way.',
          llmCalls: 1,
          phase: 'turn_boundary',
          model: { id, provider, vendorModelId },
        },
      ]);
      assert.deepEqual(result?.tokens, {
        inputTokens: 550,
        cachedTokens: 0,
        reasoningTokens: 0,
        outputTokens: 45,
      });
      assert.equal(result?.turns, 2, 'the judge’s call is not one of the run’s turns');
      // Reviewed at the bottom of the tool round, before the next turn.
      const sequence = types(frames).filter((type) => type !== 'assistant_delta');
      assert.deepEqual(sequence, [
        'assistant_message',
        'tool_call',
        'tool_result',
        'supervisor',
        'assistant_message',
        'result',
      ]);

      const requests = fixture.fake.requests;
      assert.deepEqual(requests.map(isJudge), [false, true, false]);
      const judge = bodyOf(requests[1]);
      assert.equal(judge.tools, undefined, 'the judge gets no tools');
      assert.match(requests[1]?.rawBody ?? '', /What time is it\?/);
      assert.match(requests[1]?.rawBody ?? '', /calls tool current_time/);
      assert.deepEqual(userTextsOf(requests[2]), ['What time is it?'], 'on_track steers nothing');
    });

    it('reasoningTrigger { chars: 20 }: a review mid-thought (phase reasoning) whose redirect aborts the turn in flight; the cut turn’s tokens still count', async () => {
      const thought = 'Let me think about this for a long while.';
      fixture.fake.enqueue(
        {
          thinking: [thought, ' And longer still.'],
          text: ['never sent'],
          // Held after the first thought: only the judge's verdict ends this turn.
          holdUntil: new Promise(() => {}),
          holdAfterChunks: THROUGH_FIRST_THOUGHT[api] ?? 1,
        },
        verdict(
          { action: 'redirect', reason: 'Overthinking.', redirect: 'Just read the clock.' },
          { inputTokens: 200, outputTokens: 10 },
        ),
        final('It is noon.', { inputTokens: 120, outputTokens: 8 }),
      );
      const { frames } = await fixture.runToEnd({
        systemPrompt: 's',
        prompt: 'Time?',
        reasoningLevel: 'medium',
        supervisor: { interval: 1, reasoningTrigger: { chars: 20 } },
      });

      const result = frames.at(-1)?.data.data;
      assert.equal(types(frames).at(-1), 'result');
      assert.equal(result?.text, 'It is noon.');
      assert.deepEqual(
        dataOf(frames, 'supervisor').map(({ model: _model, ...data }) => data),
        [
          {
            action: 'redirect',
            reason: 'Overthinking.',
            redirect: 'Just read the clock.',
            llmCalls: 1,
            phase: 'reasoning',
          },
        ],
      );
      const sequence = types(frames).filter((type) => type !== 'assistant_delta');
      assert.deepEqual(sequence, ['thinking_delta', 'supervisor', 'assistant_message', 'result']);
      assert.equal(result?.turns, 2, 'the cut turn counts');
      // The cut turn reported no usage: its prompt and thoughts are estimated on top of the scripted.
      assert.ok(
        result?.tokens.reasoningTokens >= Math.ceil(thought.length / 4),
        JSON.stringify(result?.tokens),
      );
      assert.ok(result?.tokens.inputTokens > 320, JSON.stringify(result?.tokens));
      assert.ok(result?.tokens.outputTokens > 18, JSON.stringify(result?.tokens));

      const requests = fixture.fake.requests;
      assert.deepEqual(requests.map(isJudge), [false, true, false]);
      await fixture.fake.waitUntil(
        () => requests[0]?.closedByClient === true,
        'the cut turn’s request closed',
      );
      assert.match(requests[1]?.rawBody ?? '', /Let me think about this/, 'the judge saw the thoughts');
      assert.match(userTextsOf(requests[2]).at(-1) ?? '', /Just read the clock\./);
    });

    it('modelId: the judge runs on the model it names, resolved in the run’s workspace', async () => {
      const models = await fixture.server.request('GET', `${fixture.ws}/models`, {
        headers: fixture.headers,
      });
      const judgeModelId = String(models.body.defaultModelId);
      fixture.fake.enqueue(clockCall('m1'), verdict({ action: 'on_track', reason: 'ok' }), final('one'));
      const named = await fixture.runToEnd({
        systemPrompt: 's',
        prompt: 'Time?',
        tools: [CLOCK],
        supervisor: { interval: 1, modelId: judgeModelId },
      });
      assert.equal((dataOf(named.frames, 'supervisor')[0]?.model as Wire | undefined)?.id, judgeModelId);
    });

    it('supervisor.modelId that resolves to nothing: 400 invalid_model at creation, like modelId (run, session, and a message override)', async () => {
      const supervisor = { interval: 1, modelId: 'nowhere/no-such-model' };
      const run = await fixture.createRun({ systemPrompt: 's', prompt: 'Time?', tools: [CLOCK], supervisor });
      assert.equal(run.status, 400, JSON.stringify(run.body));
      assert.equal(run.body.error, 'invalid_model');
      assert.match(run.body.message, /^supervisor\.modelId: /);

      const session = await fixture.createSession({ systemPrompt: 's', supervisor });
      assert.equal(session.status, 400, JSON.stringify(session.body));
      assert.equal(session.body.error, 'invalid_model');

      const sessionId = await fixture.newSession({ systemPrompt: 's' });
      const message = await fixture.postMessage(sessionId, { prompt: 'Time?', supervisor });
      assert.equal(message.status, 400, JSON.stringify(message.body));
      assert.equal(message.body.error, 'invalid_model');
      assert.match(message.body.message, /^supervisor\.modelId: /);
      assert.equal(fixture.fake.requests.length, 0, 'nothing ran');
    });

    it('a judge failing with HTTP 500: no supervisor event, the run still succeeds', async () => {
      fixture.fake.enqueue(clockCall('e1'), { type: 'http-error', status: 500 }, final('It is noon.'));
      const { frames } = await fixture.runToEnd({
        systemPrompt: 's',
        prompt: 'Time?',
        tools: [CLOCK],
        supervisor: { interval: 1 },
      });
      assert.equal(types(frames).at(-1), 'result');
      assert.equal(frames.at(-1)?.data.data.subtype, 'success');
      assert.equal(frames.at(-1)?.data.data.text, 'It is noon.');
      assert.deepEqual(dataOf(frames, 'supervisor'), []);
      assert.deepEqual(fixture.fake.requests.map(isJudge), [false, true, false], 'the judge is not retried');
    });

    it('session inheritance: a session created with supervisor applies it to its message runs; a message override tunes it for its run only', async () => {
      const sessionId = await fixture.newSession({
        systemPrompt: 's',
        tools: [CLOCK],
        supervisor: { interval: 1, reasoningTrigger: false },
      });
      fixture.fake.enqueue(clockCall('s1'), verdict({ action: 'on_track', reason: 'ok' }), final('one'));
      const first = await fixture.sendMessage(sessionId, { prompt: 'Time?' });
      assert.equal(first.frames.at(-1)?.data.data.text, 'one');
      assert.deepEqual(
        dataOf(first.frames, 'supervisor').map((data) => data.action),
        ['on_track'],
      );
      assert.deepEqual(fixture.fake.requests.map(isJudge), [false, true, false]);

      // A message override tunes the judge for its run only.
      fixture.fake.reset();
      fixture.fake.enqueue(
        clockCall('s2'),
        clockCall('s3'),
        verdict({ action: 'on_track', reason: 'ok' }),
        final('two'),
      );
      await fixture.sendMessage(sessionId, {
        prompt: 'Again?',
        supervisor: { interval: 2, reasoningTrigger: false },
      });
      assert.deepEqual(fixture.fake.requests.map(isJudge), [false, false, true, false]);

      fixture.fake.reset();
      fixture.fake.enqueue(clockCall('s4'), verdict({ action: 'on_track', reason: 'ok' }), final('three'));
      const third = await fixture.sendMessage(sessionId, { prompt: 'And now?' });
      assert.equal(dataOf(third.frames, 'supervisor').length, 1, 'the session default is back');
    });
  });
}
