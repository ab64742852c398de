import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelCall, ModelPort } from '../../src/engine/ports.ts';
import { resolvedMockModel } from '../support/turn-loop-harness.ts';
import { parsePlan } from '../../src/providers/task-planner/planner-reply.ts';
import { taskPlanner } from '../../src/providers/task-planner/task-planner.ts';

/** The one-shot planner of plan-only runs: its reply read leniently, and the one call it makes. */

describe('the planner’s reply', () => {
  it('the first JSON object of the reply, in a code fence or prose too, is the plan; steps as strings or titled objects', () => {
    assert.deepEqual(
      parsePlan(
        'Here:\n```json\n{"brief": " Trip ", "steps": ["Book flight", {"title": "Book hotel"}, "", 3]}\n```',
      ),
      {
        brief: 'Trip',
        steps: ['Book flight', 'Book hotel'],
      },
    );
  });

  it('no steps, or an empty list: a plan with no steps; a brief alone is enough', () => {
    assert.deepEqual(parsePlan('{"brief": "Say hi", "steps": []}'), { brief: 'Say hi', steps: [] });
    assert.deepEqual(parsePlan('{"brief": "Say hi"}'), { brief: 'Say hi', steps: [] });
    assert.deepEqual(parsePlan('{"steps": ["a"]}'), { brief: '', steps: ['a'] });
  });

  it('a reply without a JSON object, or one with neither brief nor steps, is no plan', () => {
    assert.equal(parsePlan('I will book it.'), null);
    assert.equal(parsePlan('{"action": "go"}'), null);
    assert.equal(parsePlan('{"brief": "", "steps": "a, b"}'), null);
  });
});

describe('the planner’s call', () => {
  it('one call on the run’s model, with its system prompt and input then the planning request, without tools or reasoning', async () => {
    const calls: ModelCall[] = [];
    const models: ModelPort = {
      call: async (call) => {
        calls.push(call);
        const usage = { inputTokens: 10, cachedTokens: 0, reasoningTokens: 0, outputTokens: 5 };
        return {
          text: '{"brief": "b", "steps": ["x"]}',
          finishReason: 'stop',
          toolCalls: [],
          usage,
          responseMessages: [],
        };
      },
      close: async () => {},
    };
    const model = resolvedMockModel('echo');
    const reply = await taskPlanner(models).plan(
      { model, instructions: 'sys', input: [{ role: 'user', content: 'task' }] },
      new AbortController().signal,
    );

    assert.deepEqual(reply.plan, { brief: 'b', steps: ['x'] });
    assert.equal(reply.usage.inputTokens, 10);
    assert.equal(calls.length, 1);
    const [call] = calls;
    assert.equal(call?.model, model);
    assert.equal(call?.instructions, 'sys');
    assert.equal(call?.tools, undefined);
    assert.equal(call?.reasoningLevel, null);
    assert.deepEqual(call?.messages[0], { role: 'user', content: 'task' });
    assert.match(
      String(call?.messages[1]?.content),
      /^\[task plan\] Do not carry out the task above yet: plan it\./,
    );
  });
});
