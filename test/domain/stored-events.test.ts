import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEventType } from '../../src/domain/run-events.ts';
import { decodeEventData, decodeRunEvent, UndecodableEventError } from '../../src/domain/stored-events.ts';

const USAGE = {
  tokens: { inputTokens: 1, cachedTokens: 0, reasoningTokens: 0, outputTokens: 1 },
  turns: 1,
  model: { id: 'mock/echo', provider: 'mock', vendorModelId: 'echo' },
};
const STRUCTURED_OUTPUT = {
  schemaRequested: false,
  schemaEnforced: false,
  enforcementMechanism: 'none',
  unconstrainedFallbackOccurred: false,
};

/** One well-formed stored payload per event type, as the emitter writes them. */
const WELL_FORMED: Record<RunEventType, unknown> = {
  assistant_delta: { text: 'Hel' },
  thinking_delta: { text: 'hm' },
  assistant_message: { text: 'Hello', turn: 0, finishReason: null },
  tool_call: { toolUseId: 't1', name: 'search', input: { q: 'x' } },
  tool_result: { toolUseId: 't1', name: 'search', ok: true, summary: 'found' },
  tool_files: { name: 'search', files: [] },
  local_tool_call: { toolUseId: 'c1', name: 'lookup', args: {}, kind: 'local' },
  local_tool_result_in: { toolUseId: 'c1', output: 'ok' },
  loop_detected: { consecutiveCount: 3, hardCutoff: false, tools: ['lookup'] },
  tool_budget_exceeded: { tool: 'lookup', maxCalls: 1, callIndex: 2 },
  supervisor: { action: 'on_track', reason: 'fine', llmCalls: 1 },
  task_plan: {
    v: 2,
    planId: 'plan_1',
    revision: 1,
    mode: 'optional',
    brief: '',
    steps: [],
    source: 'agent',
    transition: { kind: 'created', stepId: null },
    transitionIndex: 0,
    transitionCount: 1,
    plan: { v: 2, planId: 'plan_1', revision: 1, mode: 'optional', brief: '', steps: [] },
  },
  result: { subtype: 'success', text: 'done', structuredOutput: STRUCTURED_OUTPUT, ...USAGE },
  error: {
    error: 'boom',
    code: 'worker_error',
    finishReason: null,
    structuredOutput: STRUCTURED_OUTPUT,
    ...USAGE,
  },
  cancelled: { ...USAGE },
};

describe('decoding stored events: the typed event, or an error that says what is wrong', () => {
  it('every event type decodes from what the emitter writes, to the same data', () => {
    const types = Object.keys(WELL_FORMED).filter((type): type is RunEventType => type in WELL_FORMED);
    for (const type of types) {
      const data = WELL_FORMED[type];
      const event = { seq: 1, type, dataJson: JSON.stringify(data) };
      assert.deepEqual(decodeRunEvent(event), { type, data }, type);
    }
  });

  it('decodeEventData types the data by its event type', () => {
    const { toolUseId, args } = decodeEventData(
      'local_tool_call',
      JSON.stringify(WELL_FORMED.local_tool_call),
    );
    assert.deepEqual({ toolUseId, args }, { toolUseId: 'c1', args: {} });
  });

  it('terminal events written before the usage triple and structuredOutput still decode', () => {
    assert.deepEqual(decodeEventData('result', '{"subtype":"success","text":"done"}'), {
      subtype: 'success',
      text: 'done',
    });
    assert.deepEqual(decodeEventData('cancelled', '{}'), {});
  });

  const broken: Array<{ rule: string; type: RunEventType; dataJson: string; message: string }> = [
    {
      rule: 'data that is not JSON',
      type: 'assistant_delta',
      dataJson: '{"text":',
      message: 'stored assistant_delta event (seq 9) does not decode: its data is not JSON',
    },
    {
      rule: 'data that is not an object',
      type: 'assistant_message',
      dataJson: '[]',
      message: 'stored assistant_message event (seq 9) does not decode: its data is not an object',
    },
    {
      rule: 'a required field missing',
      type: 'local_tool_result_in',
      dataJson: '{"output":"ok"}',
      message: 'stored local_tool_result_in event (seq 9) does not decode: field toolUseId is not a string',
    },
    {
      rule: 'a field of the wrong kind',
      type: 'assistant_message',
      dataJson: '{"text":"","turn":0,"finishReason":3}',
      message:
        'stored assistant_message event (seq 9) does not decode: field finishReason is not a string or null',
    },
    {
      rule: 'an array field that is not an array',
      type: 'loop_detected',
      dataJson: '{"consecutiveCount":3,"hardCutoff":true,"tools":"x"}',
      message: 'stored loop_detected event (seq 9) does not decode: field tools is not an array',
    },
  ];
  for (const { rule, type, dataJson, message } of broken) {
    it(`${rule} is an UndecodableEventError naming the event and the problem`, () => {
      const expected = (error: unknown) =>
        error instanceof UndecodableEventError && error.message === message;
      assert.throws(() => decodeRunEvent({ seq: 9, type, dataJson }), expected);
      assert.throws(() => decodeEventData(type, dataJson, 9), expected);
    });
  }
});
