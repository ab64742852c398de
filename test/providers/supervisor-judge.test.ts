import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelMessage } from 'ai';
import type { ResolvedModel } from '../../src/domain/model.ts';
import type { ModelCall, ModelPort } from '../../src/engine/ports.ts';
import { JUDGE_INSTRUCTIONS, judgePrompt } from '../../src/providers/supervisor-judge/judge-prompt.ts';
import { parseVerdict } from '../../src/providers/supervisor-judge/judge-verdict.ts';
import { supervisorJudges } from '../../src/providers/supervisor-judge/supervisor-judge.ts';
import { resolvedMockModel } from '../support/turn-loop-harness.ts';

describe('the judge’s verdict, read leniently', () => {
  it('a bare JSON object, or one inside a code fence or prose', () => {
    assert.deepEqual(parseVerdict('{"action":"on_track","reason":"fine"}'), {
      action: 'on_track',
      reason: 'fine',
    });
    assert.deepEqual(
      parseVerdict(
        'Here is my verdict:\n```json\n{ "action": "redirect", "reason": "loops", "redirect": "Stop {now}." }\n```',
      ),
      { action: 'redirect', reason: 'loops', redirect: 'Stop {now}.' },
    );
    assert.deepEqual(parseVerdict('{not json} then {"action":"finalize","reason":"done"}'), {
      action: 'finalize',
      reason: 'done',
    });
  });

  it('the action in any case, with spaces or dashes; a missing reason is empty', () => {
    assert.equal(parseVerdict('{"action":"On Track"}')?.action, 'on_track');
    assert.equal(parseVerdict('{"action":"on-track"}')?.action, 'on_track');
    assert.equal(parseVerdict('{"action":"FINALISE"}')?.action, 'finalize');
    assert.equal(parseVerdict('{"action":"finalize"}')?.reason, '');
  });

  it('a redirect without its own text steers with the reason; with neither it is no verdict', () => {
    assert.deepEqual(parseVerdict('{"action":"redirect","reason":"Use the search tool."}'), {
      action: 'redirect',
      reason: 'Use the search tool.',
      redirect: 'Use the search tool.',
    });
    assert.equal(parseVerdict('{"action":"redirect"}'), null);
  });

  it('no JSON object, an unknown action or no action: no verdict', () => {
    assert.equal(parseVerdict('The agent is on track.'), null);
    assert.equal(parseVerdict('{"action":"pause","reason":"x"}'), null);
    assert.equal(parseVerdict('{"reason":"x"}'), null);
    assert.equal(parseVerdict('["on_track"]'), null);
    assert.equal(parseVerdict(''), null);
  });
});

describe('the judge’s prompt', () => {
  const call = (id: string, input: unknown): ModelMessage => ({
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: id, toolName: 'search', input }],
  });
  const result = (id: string, value: string): ModelMessage => ({
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: id, toolName: 'search', output: { type: 'text', value } }],
  });

  it('the transcript shows what was asked, said and done; long tool results are cut', () => {
    const prompt = judgePrompt({
      phase: 'turn_boundary',
      conversation: [
        { role: 'user', content: 'Find the capital of France.' },
        call('c1', { q: 'capital of France' }),
        result('c1', `Paris ${'x'.repeat(5_000)}`),
        { role: 'assistant', content: [{ type: 'text', text: 'Checking once more.' }] },
      ],
    });
    assert.match(prompt, /\[user\]\nFind the capital of France\./);
    assert.match(prompt, /calls tool search with \{"q":"capital of France"\}/);
    assert.match(prompt, /tool search returned: Paris x+… \[\d+ more characters\]/);
    assert.match(prompt, /Checking once more\./);
    assert.ok(prompt.length < 2_000, `compact: ${prompt.length} characters`);
    assert.doesNotMatch(prompt, /reasoning so far/);
  });

  it('a long run keeps the task and the latest messages within the bound', () => {
    const conversation: ModelMessage[] = [{ role: 'user', content: 'The task.' }];
    for (let index = 0; index < 200; index++) {
      conversation.push(call(`c${index}`, { q: `query ${index}` }), result(`c${index}`, 'y'.repeat(500)));
    }
    const prompt = judgePrompt({ phase: 'turn_boundary', conversation });
    assert.ok(prompt.length < 26_000, `bounded: ${prompt.length}`);
    assert.match(prompt, /The task\./);
    assert.match(prompt, /earlier messages omitted/);
    assert.match(prompt, /query 199/);
  });

  it('mid-turn, the thoughts in flight follow the transcript', () => {
    const prompt = judgePrompt({
      phase: 'reasoning',
      conversation: [{ role: 'user', content: 'q' }],
      thoughts: 'I keep going around in circles',
    });
    assert.match(prompt, /middle of a turn\. Its reasoning so far:\n\nI keep going around in circles/);
  });
});

describe('supervisorJudges: a judge on a catalog model through the model port', () => {
  it('resolves the judge model in the run’s workspace and makes one plain call per review', async () => {
    const model: ResolvedModel = resolvedMockModel('judge-model');
    const resolved: Array<[string, string | undefined]> = [];
    const calls: ModelCall[] = [];
    const usage = { inputTokens: 30, cachedTokens: 0, reasoningTokens: 0, outputTokens: 9 };
    const models: ModelPort = {
      call: async (request) => {
        calls.push(request);
        return {
          text: '{"action":"finalize","reason":"enough"}',
          finishReason: 'end_turn',
          toolCalls: [],
          usage,
          responseMessages: [],
        };
      },
      close: async () => {},
    };
    const judges = supervisorJudges({
      models,
      resolver: {
        resolve: async (workspaceId, modelId) => {
          resolved.push([workspaceId, modelId]);
          return model;
        },
      },
    });
    const judge = await judges.judgeFor('ws_1', 'mock/judge-model');
    assert.deepEqual(resolved, [['ws_1', 'mock/judge-model']]);
    assert.deepEqual(judge.model, { id: 'mock/judge-model', provider: 'mock', vendorModelId: 'judge-model' });

    const review = await judge.review(
      { phase: 'turn_boundary', conversation: [{ role: 'user', content: 'q' }] },
      new AbortController().signal,
    );
    assert.deepEqual(review, { verdict: { action: 'finalize', reason: 'enough' }, usage, llmCalls: 1 });
    assert.equal(calls.length, 1);
    const [request] = calls;
    assert.equal(request?.instructions, JUDGE_INSTRUCTIONS);
    assert.equal(request?.reasoningLevel, null);
    assert.equal(request?.tools, undefined, 'no tools');
    assert.equal(request?.messages.length, 1);
  });
});
