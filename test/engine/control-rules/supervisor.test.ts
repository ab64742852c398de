import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolRef } from '../../../src/domain/tool-ref.ts';
import type { RecordedRequest, ScriptedTurn } from '../../fakes/scripted-reply.ts';
import { ofType, within, type LoggedEvent, type RunOptions } from '../../support/turn-loop-harness.ts';
import { toolChoiceOf, userTextsOf } from '../../support/wire-requests.ts';
import { WIRES, wireRig } from './wire-rig.ts';

/**
 * The rules of `supervisor` on the real turn loop with the controls the spec asks for and the
 * worker's judge (see turn-loop-harness.ts), on each wire protocol. The judge runs on the run's
 * model, the fake provider: a review is one more provider request, told apart by the judge's system
 * prompt, and the test scripts its verdict as a text reply. The HTTP suite
 * (test/runs/supervisor.test.ts) keeps the wiring: the event on the stream, usage, the judge's
 * model, reviews mid-thought, a failing judge under the service's retry policy, validation and
 * sessions.
 */

const CLOCK: ToolRef = { kind: 'svc_plugin', name: 'current_time' };
const JUDGE_MARK = 'You supervise an AI agent';

const clockCall = (id: string): ScriptedTurn => ({
  toolCalls: [{ id, name: 'current_time', input: { timeZone: 'UTC' } }],
});
const final = (text: string): ScriptedTurn => ({ text: [text] });
/** The judge's reply: a verdict as JSON, in a sentence of prose as models often give it. */
const verdict = (fields: Record<string, string>): ScriptedTurn => ({
  text: ['My verdict: ', JSON.stringify(fields)],
});

const isJudge = (request: RecordedRequest | undefined) => request?.rawBody.includes(JUDGE_MARK) ?? false;
const reviews = (events: readonly LoggedEvent[]) => ofType(events, 'supervisor').map((event) => event.data);

for (const api of WIRES) {
  describe(`supervisor rules on the turn loop (${api})`, { timeout: 90_000 }, () => {
    const rig = wireRig(api);

    /** Runs to its end, which must be a `result`: its text and the log. */
    async function runToResult(options: Omit<RunOptions, 'model'>) {
      const run = await rig.harness().start({ ...options, model: rig.model() });
      const { terminal, events } = await within(run.ended, `the end of run ${run.runId}`);
      assert.equal(terminal.type, 'result');
      assert.equal(terminal.type === 'result' && terminal.data.subtype, 'success');
      return { text: terminal.type === 'result' ? terminal.data.text : undefined, events };
    }

    it('redirect: the next agent request carries the steering message, tools still available', async () => {
      rig
        .fake()
        .enqueue(
          clockCall('r1'),
          verdict({ action: 'redirect', reason: 'Wrong zone.', redirect: 'Ask for Europe/Paris time.' }),
          final('Paris it is.'),
        );
      const { text, events } = await runToResult({
        prompt: 'Time in Paris?',
        tools: [CLOCK],
        supervisor: { interval: 1 },
      });
      assert.equal(text, 'Paris it is.');
      const [event] = reviews(events);
      assert.equal(event?.action, 'redirect');
      assert.equal(event?.redirect, 'Ask for Europe/Paris time.');
      assert.equal(event?.phase, 'turn_boundary');

      const next = rig.fake().requests[2];
      assert.equal(isJudge(next), false);
      assert.match(userTextsOf(next).at(-1) ?? '', /Ask for Europe\/Paris time\./);
      assert.equal(toolChoiceOf(api, next), 'auto');
    });

    it('finalize: the next agent request has tool choice none and asks for the final answer', async () => {
      rig
        .fake()
        .enqueue(
          clockCall('f1'),
          verdict({ action: 'finalize', reason: 'The clock answered.' }),
          final('It is noon.'),
        );
      const { text, events } = await runToResult({
        prompt: 'Time?',
        tools: [CLOCK],
        supervisor: { interval: 1 },
      });
      assert.equal(text, 'It is noon.');
      assert.deepEqual(
        reviews(events).map((data) => [data.action, 'redirect' in data]),
        [['finalize', false]],
      );
      const requests = rig.fake().requests;
      assert.deepEqual(requests.map(isJudge), [false, true, false]);
      assert.equal(toolChoiceOf(api, requests[0]), 'auto');
      assert.equal(toolChoiceOf(api, requests[2]), 'none');
      assert.match(userTextsOf(requests[2]).at(-1) ?? '', /give your final answer now/);
    });

    it('interval 2: one review every 2 model invocations, at the bottom of a tool round', async () => {
      rig
        .fake()
        .enqueue(
          clockCall('i1'),
          clockCall('i2'),
          verdict({ action: 'on_track', reason: 'fine' }),
          clockCall('i3'),
          final('Done.'),
        );
      const { text, events } = await runToResult({
        prompt: 'Time?',
        tools: [CLOCK],
        supervisor: { interval: 2, reasoningTrigger: false },
      });
      assert.equal(text, 'Done.');
      assert.equal(reviews(events).length, 1);
      assert.deepEqual(rig.fake().requests.map(isJudge), [false, false, true, false, false]);
    });

    it('a judge reply that is no verdict: skipped, the run goes on', async () => {
      rig.fake().enqueue(clockCall('n1'), final('All good, keep going.'), final('It is noon.'));
      const { text, events } = await runToResult({
        prompt: 'Time?',
        tools: [CLOCK],
        supervisor: { interval: 1 },
      });
      assert.equal(text, 'It is noon.');
      assert.deepEqual(reviews(events), []);
      assert.deepEqual(rig.fake().requests.map(isJudge), [false, true, false]);
    });
  });
}
