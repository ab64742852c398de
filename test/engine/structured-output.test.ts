import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProviderApi, ResolvedModel } from '../../src/domain/model.ts';
import { ControlFailure } from '../../src/domain/control-errors.ts';
import type { OutputSchemaSetting } from '../../src/domain/run-controls.ts';
import { baseTerminalFields, NO_STRUCTURED_OUTPUT } from '../../src/domain/terminal-fields.ts';
import { enforcementPathFor } from '../../src/engine/controls/structured-output/enforcement-path.ts';
import { withoutSchema } from '../../src/engine/controls/structured-output/schema-refusal.ts';
import {
  structuredOutputControl,
  StructuredOutputControl,
} from '../../src/engine/controls/structured-output/structured-output-control.ts';
import { ControlPipeline } from '../../src/engine/loop/control-pipeline.ts';
import { isUnexpectedStop, terminalEventFor } from '../../src/engine/loop/loop-outcome.ts';
import type { ContinueWith, HostTool, RunControl } from '../../src/engine/loop/run-control.ts';
import type { ModelCall, ProviderFailure, ToolCallRequest } from '../../src/engine/ports.ts';
import { JsonSchemaValidator } from '../../src/tools/json-schema-validator.ts';
import { openLoopHarness, resolvedMockModel, within, withoutDeltas } from '../support/turn-loop-harness.ts';

const SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string' } },
  required: ['answer'],
};
const BEST_EFFORT: OutputSchemaSetting = { name: 'answer', schema: SCHEMA, enforcement: 'best_effort' };
const STRICT: OutputSchemaSetting = { ...BEST_EFFORT, enforcement: 'strict' };
const VALID = '{"answer":"noon"}';

const validator = new JsonSchemaValidator();
const emit = () => {};

function modelOf(api: ProviderApi, vendorModelId = 'some-model'): ResolvedModel {
  return { ...resolvedMockModel(vendorModelId), api, id: `${api}/${vendorModelId}` };
}

/** A control started as a run on `api` would start it, with these other tools on offer. */
function started(
  setting: OutputSchemaSetting,
  api: ProviderApi,
  { tools = [] as string[], vendorModelId = 'some-model' } = {},
): StructuredOutputControl {
  const control = new StructuredOutputControl(setting);
  control.start({
    model: modelOf(api, vendorModelId),
    validator,
    tools: [...tools, 'final_report', 'set_model_response'],
  });
  return control;
}

const finalAnswer = (text: string, turn = 0) => ({
  turn,
  text,
  finishReason: 'end_turn',
  toolsCallable: true,
  emit,
});

function hostTool(control: StructuredOutputControl, name: string): HostTool {
  const tool = control.hostTools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no host tool ${name}`);
  return tool;
}

const SCHEMA_REFUSAL: ProviderFailure = {
  errorClass: 'invalid_request',
  message: "Invalid schema for response_format 'answer': 'additionalProperties' is required",
  retryable: false,
  apiStatus: 400,
  apiCode: 'invalid_request_error',
};

function callOf(overrides: Partial<ModelCall> = {}): ModelCall {
  return {
    model: modelOf('openai-chat'),
    instructions: 's',
    messages: [{ role: 'user', content: 'p' }],
    reasoningLevel: null,
    ...overrides,
  };
}

const isContinue = (verdict: unknown): verdict is ContinueWith =>
  typeof verdict === 'object' && verdict !== null && 'continueWith' in verdict;

describe('outputSchema: the enforcement path by the model’s protocol', () => {
  const rows: Array<[string, ProviderApi, string, boolean, string]> = [
    ['openai-chat takes the schema beside tools', 'openai-chat', 'gpt-4o', true, 'native_schema'],
    ['openai-responses takes the schema beside tools', 'openai-responses', 'gpt-5', true, 'native_schema'],
    ['the mock takes the schema', 'mock', 'echo', true, 'native_schema'],
    [
      'anthropic-messages, a tool-call family, answers through final_report',
      'anthropic-messages',
      'claude-sonnet-4',
      false,
      'final_report',
    ],
    [
      'Gemini 2.5 with tools answers through set_model_response',
      'google-generative-ai',
      'gemini-2.5-flash',
      true,
      'set_model_response',
    ],
    [
      'Gemini 2.5 without tools keeps the native schema',
      'google-generative-ai',
      'gemini-2.5-flash',
      false,
      'native_schema',
    ],
    [
      'Gemini 3 takes the schema beside tools',
      'google-generative-ai',
      'gemini-3-pro-preview',
      true,
      'native_schema',
    ],
    [
      'a Gemini model without a version counts as an older generation',
      'google-generative-ai',
      'gemini-flash-latest',
      true,
      'set_model_response',
    ],
    ['Gemma on the Gemini API has no path', 'google-generative-ai', 'gemma-3-27b-it', false, 'none'],
  ];
  for (const [rule, api, vendorModelId, offersTools, expected] of rows) {
    it(rule, () => {
      const path = enforcementPathFor({ api, vendorModelId }, offersTools);
      assert.equal(path.mechanism === 'synthetic_tool' ? path.tool : path.mechanism, expected);
    });
  }
});

describe('outputSchema control: native schema', () => {
  it('the response format goes on every turn, tool turns included', () => {
    const control = started(STRICT, 'openai-chat', { tools: ['lookup'] });
    for (const turn of [0, 1, 2]) {
      assert.deepEqual(
        control.beforeTurn(),
        { responseFormat: { name: 'answer', schema: SCHEMA } },
        `turn ${turn}`,
      );
    }
  });

  it('a conforming final reply is accepted and reported enforced', () => {
    const control = started(STRICT, 'openai-chat');
    assert.equal(control.beforeFinish(finalAnswer(VALID)), 'accept');
    assert.deepEqual(control.structuredOutput(), {
      schemaRequested: true,
      schemaEnforced: true,
      enforcementMechanism: 'native_schema',
      unconstrainedFallbackOccurred: false,
    });
  });

  it('a reply off the schema (or not JSON) gets one correction naming the violation; strict then fails structured_output_not_enforced', () => {
    const control = started(STRICT, 'openai-chat');
    const verdict = control.beforeFinish(finalAnswer('noon'));
    assert.ok(isContinue(verdict));
    assert.match(String(verdict.continueWith[0]?.content), /\/ is not valid JSON/);
    assert.throws(
      () => control.beforeFinish(finalAnswer('{"answer":1}')),
      (error: unknown) =>
        error instanceof ControlFailure &&
        error.errorClass === 'structured_output_not_enforced' &&
        error.details.partialText === '{"answer":1}',
    );
    assert.equal(control.structuredOutput().schemaEnforced, false);
  });

  it('best_effort accepts a reply still off the schema after the correction, not enforced', () => {
    const control = started(BEST_EFFORT, 'openai-chat');
    assert.ok(isContinue(control.beforeFinish(finalAnswer('{}'))));
    assert.equal(control.beforeFinish(finalAnswer('{}')), 'accept');
    assert.equal(control.structuredOutput().schemaEnforced, false);
  });
});

describe('outputSchema control: a provider refusing the schema', () => {
  const withSchema = callOf({ responseFormat: { name: 'answer', schema: SCHEMA } });

  it('best_effort: the call goes again without the schema, and later turns go without it (remembered)', () => {
    const control = started(BEST_EFFORT, 'openai-chat');
    const answer = control.onCallRefused({ turn: 0, call: withSchema, failure: SCHEMA_REFUSAL });
    assert.ok(answer && 'retryWith' in answer);
    assert.equal(answer.retryWith.responseFormat, undefined);
    assert.deepEqual(answer.retryWith.messages, withSchema.messages);
    assert.equal(control.beforeTurn(), undefined, 'no schema on later turns');
    assert.equal(
      control.onCallRefused({ turn: 0, call: answer.retryWith, failure: SCHEMA_REFUSAL }),
      undefined,
    );
    assert.equal(control.beforeFinish(finalAnswer(VALID)), 'accept');
    assert.deepEqual(control.structuredOutput(), {
      schemaRequested: true,
      schemaEnforced: false,
      enforcementMechanism: 'none',
      unconstrainedFallbackOccurred: true,
    });
  });

  it('strict: the run fails structured_output_schema_rejected with the provider message, apiStatus and apiCode; the attempted mechanism is reported', () => {
    const control = started(STRICT, 'openai-chat');
    const answer = control.onCallRefused({ turn: 0, call: withSchema, failure: SCHEMA_REFUSAL });
    assert.ok(answer && 'failWith' in answer);
    assert.ok(answer.failWith instanceof ControlFailure);
    assert.equal(answer.failWith.errorClass, 'structured_output_schema_rejected');
    assert.equal(answer.failWith.message, SCHEMA_REFUSAL.message);
    assert.deepEqual(answer.failWith.details, { apiStatus: 400, apiCode: 'invalid_request_error' });
    assert.deepEqual(control.structuredOutput(), {
      schemaRequested: true,
      schemaEnforced: false,
      enforcementMechanism: 'native_schema',
      unconstrainedFallbackOccurred: false,
    });
  });

  it('a refusal that does not name the schema, or of a call without it, is left to stand', () => {
    const control = started(BEST_EFFORT, 'openai-chat');
    const badImage = { ...SCHEMA_REFUSAL, message: 'Invalid image URL.' };
    assert.equal(control.onCallRefused({ turn: 0, call: withSchema, failure: badImage }), undefined);
    assert.equal(control.onCallRefused({ turn: 0, call: callOf(), failure: SCHEMA_REFUSAL }), undefined);
    const overloaded: ProviderFailure = { errorClass: 'overloaded', message: 'schema', retryable: true };
    assert.equal(control.onCallRefused({ turn: 0, call: withSchema, failure: overloaded }), undefined);
  });

  it('without the synthetic tool, a forced finishing turn stays tools-disabled and the other tools stay declared', () => {
    const tools = [
      { name: 'lookup', description: 'l', inputSchema: {} },
      { name: 'final_report', description: 'f', inputSchema: SCHEMA },
    ];
    assert.deepEqual(
      withoutSchema(callOf({ tools, toolChoice: { toolName: 'final_report' } }), 'final_report'),
      {
        ...callOf(),
        tools: [tools[0]],
        toolChoice: 'none',
      },
    );
    const alone = withoutSchema(
      callOf({ tools: [tools[1]!], toolChoice: { toolName: 'final_report' } }),
      'final_report',
    );
    assert.deepEqual(alone, callOf(), 'no tool left: no tools and no tool choice');
  });
});

describe('outputSchema control: synthetic tools', () => {
  it('final_report is offered beside other tools; a text answer makes the next turn a forced, tools-disabled finishing turn', () => {
    const control = started(STRICT, 'anthropic-messages', { tools: ['lookup'] });
    assert.deepEqual(control.beforeTurn(), { offerHostTools: ['final_report'] });
    const verdict = control.beforeFinish(finalAnswer('It is noon.'));
    assert.ok(isContinue(verdict));
    assert.match(String(verdict.continueWith[0]?.content), /calling the final_report tool/);
    assert.deepEqual(control.beforeTurn(), {
      offerHostTools: ['final_report'],
      forceTool: 'final_report',
      disableTools: true,
    });
  });

  it('without other tools every turn forces the tool; a text answer gets one insisting turn, then strict fails structured_output_not_enforced', () => {
    const control = started(STRICT, 'anthropic-messages');
    assert.deepEqual(control.beforeTurn(), {
      offerHostTools: ['final_report'],
      forceTool: 'final_report',
      disableTools: true,
    });
    const verdict = control.beforeFinish(finalAnswer('noon'));
    assert.ok(isContinue(verdict));
    assert.match(String(verdict.continueWith[0]?.content), /only accepted through the final_report tool/);
    assert.throws(
      () => control.beforeFinish(finalAnswer('noon again')),
      (error: unknown) =>
        error instanceof ControlFailure &&
        error.errorClass === 'structured_output_not_enforced' &&
        error.details.partialText === 'noon again',
    );
  });

  it('best_effort takes a text answer that keeps bypassing the tool, not enforced, the mechanism still named', () => {
    const control = started(BEST_EFFORT, 'anthropic-messages');
    control.beforeTurn();
    assert.ok(isContinue(control.beforeFinish(finalAnswer('noon'))));
    assert.equal(control.beforeFinish(finalAnswer('noon')), 'accept');
    assert.deepEqual(control.structuredOutput(), {
      schemaRequested: true,
      schemaEnforced: false,
      enforcementMechanism: 'synthetic_tool',
      unconstrainedFallbackOccurred: false,
    });
  });

  it('a captured answer ends the run at the next turn with its arguments as JSON text, enforced', () => {
    const control = started(STRICT, 'google-generative-ai', {
      tools: ['lookup'],
      vendorModelId: 'gemini-2.5-pro',
    });
    assert.deepEqual(control.beforeTurn(), { offerHostTools: ['set_model_response'] });
    const output = hostTool(control, 'set_model_response').execute({ answer: 'noon' }, { turn: 0, emit });
    assert.deepEqual(output, { type: 'text', value: 'Final answer recorded.' });
    assert.deepEqual(control.beforeTurn(), { finishWith: VALID });
    assert.equal(control.structuredOutput().schemaEnforced, true);
    assert.equal(control.structuredOutput().enforcementMechanism, 'synthetic_tool');
  });

  const roundOf = (...calls: ToolCallRequest[]) => calls;
  const reportCall = (input: unknown): ToolCallRequest => ({ id: 'fr', name: 'final_report', input });

  it('the synthetic tool called beside other tools is intercepted: it must come alone', () => {
    const control = started(STRICT, 'anthropic-messages', { tools: ['lookup'] });
    const call = reportCall({ answer: 'x' });
    const round = roundOf({ id: 'l1', name: 'lookup', input: {} }, call);
    const intercepted = control.beforeToolCall({
      turn: 0,
      call,
      round,
      tool: hostTool(control, 'final_report'),
    });
    assert.match(JSON.stringify(intercepted?.output), /call it on its own/);
    const alone = control.beforeToolCall({
      turn: 0,
      call,
      round: [call],
      tool: hostTool(control, 'final_report'),
    });
    assert.equal(alone, undefined);
  });

  it('arguments off the schema get one more forced turn; off again, strict fails with them as partialText, best_effort ends with them unenforced', () => {
    for (const setting of [STRICT, BEST_EFFORT]) {
      const control = started(setting, 'anthropic-messages', { tools: ['lookup'] });
      const tool = hostTool(control, 'final_report');
      const first = reportCall({ answer: 1 });
      control.beforeToolCall({ turn: 0, call: first, round: [first], tool });
      assert.equal(control.beforeTurn()?.forceTool, 'final_report');
      const second = reportCall({ wrong: true });
      control.beforeToolCall({ turn: 1, call: second, round: [second], tool });
      if (setting === STRICT) {
        assert.throws(
          () => control.beforeTurn(),
          (error: unknown) =>
            error instanceof ControlFailure &&
            error.errorClass === 'structured_output_not_enforced' &&
            error.details.partialText === '{"wrong":true}',
        );
      } else {
        assert.deepEqual(control.beforeTurn(), { finishWith: '{"wrong":true}' });
        assert.equal(control.structuredOutput().schemaEnforced, false);
      }
    }
  });
});

describe('outputSchema control: no enforcement path, plan-only, spec and state', () => {
  it('strict with a model that has no path fails structured_output_not_supported before any call', () => {
    const control = started(STRICT, 'google-generative-ai', { vendorModelId: 'gemma-3-27b-it' });
    assert.throws(
      () => control.beforeTurn(),
      (error: unknown) =>
        error instanceof ControlFailure && error.errorClass === 'structured_output_not_supported',
    );
  });

  it('best_effort with a model that has no path runs unconstrained and reports mechanism none', () => {
    const control = started(BEST_EFFORT, 'google-generative-ai', { vendorModelId: 'gemma-3-27b-it' });
    assert.equal(control.beforeTurn(), undefined);
    const verdict = control.beforeFinish(finalAnswer('noon'));
    assert.ok(isContinue(verdict));
    assert.ok(
      String(verdict.continueWith[0]?.content).includes(JSON.stringify(SCHEMA)),
      'the schema is shown',
    );
    assert.equal(control.beforeFinish(finalAnswer(VALID)), 'accept');
    assert.deepEqual(control.structuredOutput(), {
      schemaRequested: true,
      schemaEnforced: false,
      enforcementMechanism: 'none',
      unconstrainedFallbackOccurred: false,
    });
  });

  it('plan planOnly with strict enforcement fails structured_output_not_supported as the run starts, before any plan is drafted', () => {
    const control = structuredOutputControl({ outputSchema: STRICT, plan: { planOnly: true } });
    assert.ok(control);
    assert.throws(
      () => control.start({ model: modelOf('openai-chat'), validator, tools: [] }),
      (error: unknown) =>
        error instanceof ControlFailure && error.errorClass === 'structured_output_not_supported',
    );
  });

  it('no outputSchema, no control', () => {
    assert.equal(structuredOutputControl({}), undefined);
  });

  it('snapshot and restore carry the state to a takeover: a remembered fallback, corrections spent', () => {
    const before = started(BEST_EFFORT, 'openai-chat');
    const call = callOf({ responseFormat: { name: 'answer', schema: SCHEMA } });
    before.onCallRefused({ turn: 0, call, failure: SCHEMA_REFUSAL });
    before.beforeFinish(finalAnswer('noon'));
    const saved = JSON.parse(JSON.stringify(before.snapshot())) as unknown;

    const after = started(BEST_EFFORT, 'openai-chat');
    after.restore(saved);
    assert.equal(after.beforeTurn(), undefined, 'still without the schema');
    assert.equal(after.beforeFinish(finalAnswer('noon')), 'accept', 'the one correction was spent');
    assert.equal(after.structuredOutput().unconstrainedFallbackOccurred, true);
    after.restore({ not: 'a state' });
    assert.equal(after.structuredOutput().unconstrainedFallbackOccurred, true, 'a foreign state is ignored');
  });
});

describe('the pipeline and the loop outcome for control failures and synthetic answers', () => {
  const adjusting = (name: string, finishWith: string): RunControl => ({
    name,
    beforeTurn: () => ({ finishWith }),
  });

  it('the first final reply wins; the first control answering a refusal decides; the report comes from the control that has one', async () => {
    const pipeline = new ControlPipeline([adjusting('a', 'first'), adjusting('b', 'second')]);
    assert.equal((await pipeline.beforeTurn({ turn: 0, emit })).finishWith, 'first');
    const base = baseTerminalFields({ outputSchema: BEST_EFFORT });
    assert.deepEqual(pipeline.terminalFields(base), base, 'no control reports: the base fields stand');
    assert.equal(pipeline.onCallRefused({ turn: 0, call: callOf(), failure: SCHEMA_REFUSAL }), undefined);

    const control = new StructuredOutputControl(BEST_EFFORT);
    const withControl = new ControlPipeline([{ name: 'quiet' }, control]);
    withControl.start(modelOf('openai-chat'), validator, []);
    const call = callOf({ responseFormat: { name: 'answer', schema: SCHEMA } });
    const answer = withControl.onCallRefused({ turn: 0, call, failure: SCHEMA_REFUSAL });
    assert.ok(answer && 'retryWith' in answer);
    const fields = withControl.terminalFields(base);
    assert.equal(fields.result.structuredOutput.unconstrainedFallbackOccurred, true);
    assert.equal(fields.error.structuredOutput.unconstrainedFallbackOccurred, true);
  });

  it('a ControlFailure ends the run with an error of its errorClass, never retryable, keeping partialText, apiStatus and apiCode', () => {
    const failure = new ControlFailure('structured_output_schema_rejected', 'Invalid schema', {
      apiStatus: 400,
      apiCode: 'invalid_request_error',
      partialText: 'half',
    });
    assert.equal(isUnexpectedStop(failure), false);
    const report = { ...NO_STRUCTURED_OUTPUT, schemaRequested: true };
    const event = terminalEventFor(
      { kind: 'stopped', error: failure },
      {
        usage: {
          tokens: { inputTokens: 1, cachedTokens: 0, reasoningTokens: 0, outputTokens: 1 },
          turns: 1,
          model: { id: 'm', provider: 'p', vendorModelId: 'v' },
        },
        lastText: null,
        lastFinishReason: null,
      },
      {
        cancelled: false,
        fields: { result: { structuredOutput: report }, error: { structuredOutput: report } },
      },
    );
    assert.equal(event.type, 'error');
    assert.deepEqual(
      { ...event.data, tokens: undefined, turns: undefined, model: undefined },
      {
        error: 'Invalid schema',
        code: 'structured_output_schema_rejected',
        errorClass: 'structured_output_schema_rejected',
        finishReason: null,
        partialText: 'half',
        retryable: false,
        apiStatus: 400,
        apiCode: 'invalid_request_error',
        structuredOutput: report,
        tokens: undefined,
        turns: undefined,
        model: undefined,
      },
    );
    assert.equal(event.outcome.failureReason?.errorClass, 'structured_output_schema_rejected');
    assert.equal(event.outcome.finalText, 'half');
  });
});

describe('outputSchema in the real turn loop (mock model)', () => {
  const REPLY_SCHEMA = { type: 'object', properties: { reply: { type: 'string' } }, required: ['reply'] };

  /** The control as a run on `api` would have it: the mock answers whatever the request asks. */
  class AsIfOn extends StructuredOutputControl {
    readonly #api: ProviderApi;
    constructor(setting: OutputSchemaSetting, api: ProviderApi) {
      super(setting);
      this.#api = api;
    }
    override start(run: Parameters<StructuredOutputControl['start']>[0]): void {
      super.start({ ...run, model: { ...run.model, api: this.#api } });
    }
  }

  it(
    'native: every model call carries the response format, and the JSON reply is the result, enforced',
    { timeout: 60_000 },
    async () => {
      const harness = await openLoopHarness();
      try {
        const control = new StructuredOutputControl({
          name: 'reply',
          schema: REPLY_SCHEMA,
          enforcement: 'strict',
        });
        const run = await harness.start({ prompt: 'hello' }, new ControlPipeline([control]));
        const { terminal } = await within(run.ended, 'the end of the run');
        assert.equal(terminal.type, 'result');
        assert.equal(terminal.data.text, '{"reply":"You said: hello"}');
        assert.deepEqual(terminal.data.structuredOutput, {
          schemaRequested: true,
          schemaEnforced: true,
          enforcementMechanism: 'native_schema',
          unconstrainedFallbackOccurred: false,
        });
        assert.deepEqual(
          run.calls.map((call) => call.responseFormat?.name),
          ['reply'],
        );
        assert.deepEqual(harness.errorLogs, []);
      } finally {
        await harness.close();
      }
    },
  );

  it(
    'synthetic: the forced tool’s call is served in-process, and the run ends at the next turn with its arguments, without another model call',
    { timeout: 60_000 },
    async () => {
      const harness = await openLoopHarness();
      try {
        const control = new AsIfOn(
          { name: 'reply', schema: REPLY_SCHEMA, enforcement: 'strict' },
          'anthropic-messages',
        );
        const run = await harness.start(
          { prompt: 'call final_report {"reply":"noon"}' },
          new ControlPipeline([control]),
        );
        const { terminal, events } = await within(run.ended, 'the end of the run');
        assert.equal(terminal.type, 'result');
        assert.equal(terminal.data.text, '{"reply":"noon"}');
        assert.equal(terminal.data.structuredOutput.enforcementMechanism, 'synthetic_tool');
        assert.equal(terminal.data.structuredOutput.schemaEnforced, true);
        assert.equal(run.calls.length, 1);
        assert.deepEqual(run.calls[0]?.toolChoice, { toolName: 'final_report' });
        assert.deepEqual(withoutDeltas(events), ['assistant_message', 'result']);
        assert.deepEqual(harness.errorLogs, []);
      } finally {
        await harness.close();
      }
    },
  );
});
