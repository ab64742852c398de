import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OutputSchemaSetting } from '../../../src/domain/run-controls.ts';
import type { ErrorData, ResultData } from '../../../src/domain/run-events.ts';
import type { ToolRef } from '../../../src/domain/tool-ref.ts';
import type { RecordedRequest, ScriptedTurn } from '../../fakes/scripted-reply.ts';
import { ofType, within, type LoggedEvent, type RunOptions } from '../../support/turn-loop-harness.ts';
import { userTextsOf } from '../../support/wire-requests.ts';
import { wireRig, type WireApi } from './wire-rig.ts';

/**
 * The rules of `outputSchema` on the real turn loop with the controls the spec asks for (see
 * turn-loop-harness.ts): corrections, strict and best_effort, a provider refusing the schema, on a
 * native-schema protocol (OpenAI Chat) and on a tool-call family (Anthropic Messages, the synthetic
 * `final_report`). The fake provider records what the loop sent and plays a model that answers in or
 * off the schema. The HTTP suite (test/runs/structured-output.test.ts) keeps the wiring.
 */

const SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string' } },
  required: ['answer'],
  additionalProperties: false,
};
const OUTPUT_SCHEMA: OutputSchemaSetting = { name: 'answer', schema: SCHEMA, enforcement: 'best_effort' };
const STRICT: OutputSchemaSetting = { ...OUTPUT_SCHEMA, enforcement: 'strict' };

const CLOCK: ToolRef = { kind: 'svc_plugin', name: 'current_time' };

const clockCall = (id: string): ScriptedTurn => ({
  toolCalls: [{ id, name: 'current_time', input: { timeZone: 'UTC' } }],
});
const reply = (text: string): ScriptedTurn => ({ text: [text] });
const finalReport = (id: string, input: Record<string, unknown>): ScriptedTurn => ({
  toolCalls: [{ id, name: 'final_report', input }],
});

const ENFORCED_NATIVE = {
  schemaRequested: true,
  schemaEnforced: true,
  enforcementMechanism: 'native_schema',
  unconstrainedFallbackOccurred: false,
} as const;
const ENFORCED_SYNTHETIC = { ...ENFORCED_NATIVE, enforcementMechanism: 'synthetic_tool' } as const;
const FELL_BACK = {
  schemaRequested: true,
  schemaEnforced: false,
  enforcementMechanism: 'none',
  unconstrainedFallbackOccurred: true,
} as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- provider wire JSON
type Wire = Record<string, any>;

function bodyOf(request: RecordedRequest | undefined): Wire {
  if (!request) throw new Error('no such provider request');
  return request.body as Wire;
}

/** The suite's rig, and a run taken to its end: the terminal event, the log and the run row. */
function suiteOn(api: WireApi) {
  const rig = wireRig(api);
  /** Runs to the end; the terminal event, the log and the run row. */
  const runToEnd = async (options: Omit<RunOptions, 'model'>) => {
    const run = await rig.harness().start({ ...options, model: rig.model() });
    return within(run.ended, `the end of run ${run.runId}`);
  };
  return { fake: rig.fake, runToEnd };
}

function resultOf(terminal: LoggedEvent): ResultData {
  assert.equal(terminal.type, 'result', JSON.stringify(terminal.data));
  if (terminal.type !== 'result') throw new Error('unreachable');
  return terminal.data;
}

function errorOf(terminal: LoggedEvent): ErrorData {
  assert.equal(terminal.type, 'error', JSON.stringify(terminal.data));
  if (terminal.type !== 'error') throw new Error('unreachable');
  return terminal.data;
}

describe('outputSchema rules on a native JSON-schema protocol (openai-chat)', { timeout: 90_000 }, () => {
  const { fake, runToEnd } = suiteOn('openai-chat');

  it('a final reply off the schema gets one correction turn, and a conforming second reply succeeds enforced', async () => {
    fake().enqueue(reply('noon, I think'), reply('{"answer":"noon"}'));
    const { terminal } = await runToEnd({ prompt: 'p', outputSchema: STRICT });
    const result = resultOf(terminal);
    assert.equal(result.text, '{"answer":"noon"}');
    assert.deepEqual(result.structuredOutput, ENFORCED_NATIVE);
    assert.equal(fake().requests.length, 2);
    assert.match(userTextsOf(fake().requests[1]).at(-1) ?? '', /does not match the required JSON schema/);
  });

  it('strict: a reply still off the schema after the correction fails structured_output_not_enforced, the reply kept as partialText', async () => {
    fake().enqueue(reply('noon'), reply('{"answer":12}'));
    const { terminal, run } = await runToEnd({ prompt: 'p', outputSchema: STRICT });
    const error = errorOf(terminal);
    assert.equal(error.errorClass, 'structured_output_not_enforced');
    assert.equal(error.code, 'structured_output_not_enforced');
    assert.equal(error.partialText, '{"answer":12}');
    assert.equal(error.retryable, false);
    assert.deepEqual(error.structuredOutput, { ...ENFORCED_NATIVE, schemaEnforced: false });
    assert.equal(fake().requests.length, 2, 'one correction, no more');
    assert.equal(run.status, 'failed');
    assert.equal(run.finalText, '{"answer":12}');
    assert.equal(run.failureReason?.errorClass, 'structured_output_not_enforced');
  });

  it('best_effort: a reply still off the schema after the correction is the result, with schemaEnforced false', async () => {
    fake().enqueue(reply('noon'), reply('still noon'));
    const { terminal } = await runToEnd({ prompt: 'p', outputSchema: OUTPUT_SCHEMA });
    const result = resultOf(terminal);
    assert.equal(result.text, 'still noon');
    assert.deepEqual(result.structuredOutput, { ...ENFORCED_NATIVE, schemaEnforced: false });
  });

  const SCHEMA_REJECTION = {
    type: 'http-error' as const,
    status: 400,
    message:
      "Invalid schema for response_format 'answer': In context=(), 'additionalProperties' is required to be supplied and to be false.",
  };

  it('best_effort: a provider that rejects the schema (400) gets the turn again without it, and the run remembers: no later request carries it', async () => {
    fake().enqueue(SCHEMA_REJECTION, clockCall('c1'), reply('It is noon.'));
    const { terminal } = await runToEnd({ prompt: 'time?', tools: [CLOCK], outputSchema: OUTPUT_SCHEMA });
    const result = resultOf(terminal);
    assert.equal(result.text, 'It is noon.');
    assert.deepEqual(result.structuredOutput, FELL_BACK);
    const requests = fake().requests;
    // The refused call, its retry, the turn after the tool, and the one correction of the plain reply.
    assert.equal(requests.length, 4);
    assert.equal(bodyOf(requests[0]).response_format?.type, 'json_schema');
    for (const request of requests.slice(1)) assert.equal(bodyOf(request).response_format, undefined);
    assert.deepEqual(bodyOf(requests[1]).messages, bodyOf(requests[0]).messages, 'the same turn, sent again');
    // Unconstrained, the correction shows the model the schema itself.
    assert.ok(userTextsOf(requests[3]).at(-1)?.includes(JSON.stringify(SCHEMA)));
  });

  it('strict: a provider that rejects the schema fails the run with structured_output_schema_rejected, keeping the provider message, apiStatus and apiCode', async () => {
    fake().enqueue(SCHEMA_REJECTION);
    const { terminal } = await runToEnd({ prompt: 'p', outputSchema: STRICT });
    const error = errorOf(terminal);
    assert.equal(error.errorClass, 'structured_output_schema_rejected');
    assert.equal(error.code, 'structured_output_schema_rejected');
    assert.equal(error.apiStatus, 400);
    assert.equal(error.apiCode, 'invalid_request_error');
    assert.equal(error.retryable, false);
    assert.equal(error.turns, 1);
    assert.equal(error.error, SCHEMA_REJECTION.message);
    assert.deepEqual(error.structuredOutput, { ...ENFORCED_NATIVE, schemaEnforced: false });
    assert.equal(fake().requests.length, 1, 'strict never retries without the schema');
  });

  it('a 400 that does not name the schema stands as invalid_request, even under best_effort', async () => {
    fake().enqueue({ type: 'http-error', status: 400, message: 'Invalid image URL.' });
    const { terminal } = await runToEnd({ prompt: 'p', outputSchema: OUTPUT_SCHEMA });
    const error = errorOf(terminal);
    assert.equal(error.errorClass, 'invalid_request');
    assert.equal(error.apiStatus, 400);
    assert.equal(fake().requests.length, 1);
  });
});

describe(
  'outputSchema rules on a tool-call family (anthropic-messages): final_report',
  { timeout: 90_000 },
  () => {
    const { fake, runToEnd } = suiteOn('anthropic-messages');
    const toolNames = (request: RecordedRequest | undefined) =>
      (bodyOf(request).tools as Wire[] | undefined)?.map((tool) => tool.name);

    it('a run with no other tool is forced to final_report from its first turn, and a conforming call ends it there', async () => {
      fake().enqueue(finalReport('fr1', { answer: 'noon' }));
      const { terminal } = await runToEnd({ prompt: 'p', outputSchema: STRICT });
      const result = resultOf(terminal);
      assert.equal(result.text, '{"answer":"noon"}');
      assert.deepEqual(result.structuredOutput, ENFORCED_SYNTHETIC);
      assert.equal(fake().requests.length, 1);
      assert.deepEqual(toolNames(fake().requests[0]), ['final_report']);
      assert.deepEqual(bodyOf(fake().requests[0]).tool_choice, { type: 'tool', name: 'final_report' });
    });

    it('final_report called beside another tool is not recorded: the other call runs, and the model is told to call it alone', async () => {
      fake().enqueue(
        {
          toolCalls: [
            ...(clockCall('c1').toolCalls ?? []),
            { id: 'fr1', name: 'final_report', input: { answer: 'early' } },
          ],
        },
        finalReport('fr2', { answer: 'noon' }),
      );
      const { terminal, events } = await runToEnd({
        prompt: 'time?',
        tools: [CLOCK],
        outputSchema: OUTPUT_SCHEMA,
      });
      assert.equal(resultOf(terminal).text, '{"answer":"noon"}');
      assert.equal(ofType(events, 'tool_result').length, 1, 'current_time ran');
      const results = (bodyOf(fake().requests[1]).messages as Wire[])
        .flatMap((message) => (Array.isArray(message.content) ? (message.content as Wire[]) : []))
        .filter((block) => block.type === 'tool_result' && block.tool_use_id === 'fr1');
      assert.match(JSON.stringify(results), /call it on its own/);
    });

    it('final_report input off the schema is answered with its violations and forced once more; strict then fails structured_output_not_enforced', async () => {
      fake().enqueue(finalReport('fr1', { answer: 1 }), finalReport('fr2', { wrong: true }));
      const { terminal } = await runToEnd({ prompt: 'p', outputSchema: STRICT });
      const error = errorOf(terminal);
      assert.equal(error.errorClass, 'structured_output_not_enforced');
      assert.equal(error.partialText, '{"wrong":true}');
      assert.deepEqual(error.structuredOutput, { ...ENFORCED_SYNTHETIC, schemaEnforced: false });
      assert.equal(fake().requests.length, 2);
      assert.deepEqual(bodyOf(fake().requests[1]).tool_choice, { type: 'tool', name: 'final_report' });
    });

    const TOOL_SCHEMA_REJECTION = {
      type: 'http-error' as const,
      status: 400,
      message:
        'tools.1.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12.',
    };

    it('strict: a rejected final_report schema fails structured_output_schema_rejected with the provider message, apiStatus and apiCode', async () => {
      fake().enqueue(TOOL_SCHEMA_REJECTION);
      const { terminal } = await runToEnd({ prompt: 'p', outputSchema: STRICT });
      const error = errorOf(terminal);
      assert.equal(error.errorClass, 'structured_output_schema_rejected');
      assert.equal(error.apiStatus, 400);
      assert.equal(error.apiCode, 'invalid_request_error');
      assert.equal(error.error, TOOL_SCHEMA_REJECTION.message);
      assert.deepEqual(error.structuredOutput, { ...ENFORCED_SYNTHETIC, schemaEnforced: false });
    });

    it('best_effort: a rejected final_report schema is dropped for the rest of the run, and the plain reply is the result', async () => {
      fake().enqueue(TOOL_SCHEMA_REJECTION, clockCall('c1'), reply('{"answer":"noon"}'));
      const { terminal } = await runToEnd({ prompt: 'time?', tools: [CLOCK], outputSchema: OUTPUT_SCHEMA });
      const result = resultOf(terminal);
      assert.equal(result.text, '{"answer":"noon"}');
      assert.deepEqual(result.structuredOutput, FELL_BACK);
      const names = fake().requests.map(toolNames);
      assert.deepEqual(names, [['current_time', 'final_report'], ['current_time'], ['current_time']]);
    });
  },
);
