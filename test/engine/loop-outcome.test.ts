import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidModelError, InvalidRequestError } from '../../src/domain/errors.ts';
import type { StructuredOutputReport, UsageTriple } from '../../src/domain/run-events.ts';
import { NO_STRUCTURED_OUTPUT, type TerminalFields } from '../../src/domain/terminal-fields.ts';
import { EventLogFailure, RunCancelled, ServiceShutdown } from '../../src/engine/loop/abort-reasons.ts';
import { InterruptedModelCall } from '../../src/engine/loop/interrupted-model-call.ts';
import {
  isUnexpectedStop,
  terminalEventFor,
  type EndContext,
  type LoopOutcome,
  type RunTally,
} from '../../src/engine/loop/loop-outcome.ts';
import type { TerminalEvent } from '../../src/engine/loop/terminal-events.ts';
import { ModelTurnError, type ProviderFailure } from '../../src/engine/ports.ts';

/** What the run spent: every terminal event carries this triple, whatever ended the run. */
const USAGE: UsageTriple = {
  tokens: { inputTokens: 120, cachedTokens: 20, reasoningTokens: 7, outputTokens: 33 },
  turns: 3,
  model: { id: 'mock/echo', provider: 'mock', vendorModelId: 'echo', reasoningEffort: 'medium' },
};

/** A run with an `outputSchema`: the block differs from NO_STRUCTURED_OUTPUT, so a dropped field shows. */
const SCHEMA_REQUESTED: StructuredOutputReport = { ...NO_STRUCTURED_OUTPUT, schemaRequested: true };

const TALLY: RunTally = { usage: USAGE, lastText: 'the last reply', lastFinishReason: 'tool_use' };
/** The terminal fields of a run whose only reporting control gives this `structuredOutput` block. */
function fieldsWith(structuredOutput: StructuredOutputReport): TerminalFields {
  return { result: { structuredOutput }, error: { structuredOutput } };
}

const NOT_CANCELLED: EndContext = { cancelled: false, fields: fieldsWith(SCHEMA_REQUESTED) };
const CANCELLED: EndContext = { cancelled: true, fields: fieldsWith(SCHEMA_REQUESTED) };

const RATE_LIMITED: ProviderFailure = {
  errorClass: 'rate_limit',
  message: 'Rate limit reached for requests',
  retryable: true,
  apiStatus: 429,
  apiCode: 'rate_limit_exceeded',
};
const CONTEXT_TOO_LONG: ProviderFailure = {
  errorClass: 'context_window',
  message: 'prompt is too long',
  retryable: false,
};

const stopped = (error: unknown): LoopOutcome => ({ kind: 'stopped', error });
const TRUNCATION_MESSAGE = 'the model ran out of output tokens before finishing its reply';
const WORKER_ERROR_MESSAGE = 'the worker failed while running the agent';

interface Row {
  rule: string;
  outcome: LoopOutcome;
  tally?: RunTally;
  context?: EndContext;
  /** The whole terminal event: type, data and the outcome recorded on the run row. */
  expected: TerminalEvent;
}

const ROWS: Row[] = [
  {
    rule: 'a completed reply: result success with its text; the run succeeded with it as finalText',
    outcome: { kind: 'completed', text: 'Done.' },
    expected: {
      type: 'result',
      data: { subtype: 'success', text: 'Done.', structuredOutput: SCHEMA_REQUESTED, ...USAGE },
      outcome: { status: 'succeeded', finalText: 'Done.', error: null, failureReason: null, ...USAGE },
    },
  },
  {
    rule: 'truncation: error truncation, finishReason max_tokens, partialText the text, not retryable',
    outcome: { kind: 'truncated', text: 'The answer is' },
    expected: {
      type: 'error',
      data: {
        error: TRUNCATION_MESSAGE,
        code: 'truncation',
        errorClass: 'truncation',
        finishReason: 'max_tokens',
        partialText: 'The answer is',
        retryable: false,
        structuredOutput: SCHEMA_REQUESTED,
        ...USAGE,
      },
      outcome: {
        status: 'failed',
        finalText: 'The answer is',
        error: TRUNCATION_MESSAGE,
        failureReason: { errorClass: 'truncation', finishReason: 'max_tokens' },
        ...USAGE,
      },
    },
  },
  {
    rule: 'a local tool timeout: result error_local_tool_timeout with the last text and the call named',
    outcome: { kind: 'tool_timeout', call: { toolUseId: 'call_1', name: 'lookup' }, timeoutMs: 5000 },
    expected: {
      type: 'result',
      data: {
        subtype: 'error_local_tool_timeout',
        text: 'the last reply',
        error: 'local tool lookup (call_1) got no result within 5000 ms',
        structuredOutput: SCHEMA_REQUESTED,
        ...USAGE,
      },
      outcome: {
        status: 'failed',
        finalText: 'the last reply',
        error: 'local tool lookup (call_1) got no result within 5000 ms',
        failureReason: null,
        ...USAGE,
      },
    },
  },
  {
    rule: 'a local tool timeout before any text: the result text is empty',
    outcome: { kind: 'tool_timeout', call: { toolUseId: 'call_1', name: 'lookup' }, timeoutMs: 5000 },
    tally: { usage: USAGE, lastText: null, lastFinishReason: 'tool_use' },
    expected: {
      type: 'result',
      data: {
        subtype: 'error_local_tool_timeout',
        text: '',
        error: 'local tool lookup (call_1) got no result within 5000 ms',
        structuredOutput: SCHEMA_REQUESTED,
        ...USAGE,
      },
      outcome: {
        status: 'failed',
        finalText: '',
        error: 'local tool lookup (call_1) got no result within 5000 ms',
        failureReason: null,
        ...USAGE,
      },
    },
  },
  {
    rule: "a provider failure: its class is errorClass and code; retryable, apiStatus and apiCode are the provider's",
    outcome: stopped(new ModelTurnError(RATE_LIMITED, '', false)),
    expected: {
      type: 'error',
      data: {
        error: 'Rate limit reached for requests',
        code: 'rate_limit',
        errorClass: 'rate_limit',
        finishReason: 'tool_use',
        retryable: true,
        apiStatus: 429,
        apiCode: 'rate_limit_exceeded',
        structuredOutput: SCHEMA_REQUESTED,
        ...USAGE,
      },
      outcome: {
        status: 'failed',
        finalText: null,
        error: 'Rate limit reached for requests',
        failureReason: { errorClass: 'rate_limit', finishReason: 'tool_use' },
        ...USAGE,
      },
    },
  },
  {
    rule: 'a provider failure mid-reply: the text streamed before it is partialText and the finalText',
    outcome: stopped(new ModelTurnError(CONTEXT_TOO_LONG, 'Half of', true)),
    expected: {
      type: 'error',
      data: {
        error: 'prompt is too long',
        code: 'context_window',
        errorClass: 'context_window',
        finishReason: 'tool_use',
        partialText: 'Half of',
        retryable: false,
        structuredOutput: SCHEMA_REQUESTED,
        ...USAGE,
      },
      outcome: {
        status: 'failed',
        finalText: 'Half of',
        error: 'prompt is too long',
        failureReason: { errorClass: 'context_window', finishReason: 'tool_use' },
        ...USAGE,
      },
    },
  },
  {
    rule: "an error's finishReason mirrors the last assistant_message (null when there was none)",
    outcome: stopped(new ModelTurnError(CONTEXT_TOO_LONG, '', false)),
    tally: { usage: USAGE, lastText: null, lastFinishReason: null },
    expected: {
      type: 'error',
      data: {
        error: 'prompt is too long',
        code: 'context_window',
        errorClass: 'context_window',
        finishReason: null,
        retryable: false,
        structuredOutput: SCHEMA_REQUESTED,
        ...USAGE,
      },
      outcome: {
        status: 'failed',
        finalText: null,
        error: 'prompt is too long',
        failureReason: { errorClass: 'context_window', finishReason: null },
        ...USAGE,
      },
    },
  },
  {
    // The spec: `code` is a legacy alias equal to errorClass when errorClass is present.
    rule: 'invalid_model at run start: errorClass invalid_request (code its alias), no finishReason, not retryable',
    outcome: stopped(new InvalidModelError("no platform offering with id 'gone'")),
    expected: {
      type: 'error',
      data: {
        error: "no platform offering with id 'gone'",
        code: 'invalid_request',
        errorClass: 'invalid_request',
        finishReason: null,
        retryable: false,
        structuredOutput: SCHEMA_REQUESTED,
        ...USAGE,
      },
      outcome: {
        status: 'failed',
        finalText: null,
        error: "no platform offering with id 'gone'",
        failureReason: { errorClass: 'invalid_request', finishReason: null },
        ...USAGE,
      },
    },
  },
  {
    rule: 'worker_error is retryable and carries the partial text of a broken-off call',
    outcome: stopped(new InterruptedModelCall('Streamed so', new Error('model thread exited'))),
    expected: {
      type: 'error',
      data: {
        error: WORKER_ERROR_MESSAGE,
        code: 'worker_error',
        finishReason: 'tool_use',
        partialText: 'Streamed so',
        retryable: true,
        structuredOutput: SCHEMA_REQUESTED,
        ...USAGE,
      },
      outcome: {
        status: 'failed',
        finalText: 'Streamed so',
        error: WORKER_ERROR_MESSAGE,
        failureReason: { errorClass: 'worker_error', finishReason: 'tool_use' },
        ...USAGE,
      },
    },
  },
  {
    rule: 'worker_error for a call that broke off before any text: no partialText',
    outcome: stopped(new InterruptedModelCall('', new Error('model thread exited'))),
    expected: {
      type: 'error',
      data: {
        error: WORKER_ERROR_MESSAGE,
        code: 'worker_error',
        finishReason: 'tool_use',
        retryable: true,
        structuredOutput: SCHEMA_REQUESTED,
        ...USAGE,
      },
      outcome: {
        status: 'failed',
        finalText: null,
        error: WORKER_ERROR_MESSAGE,
        failureReason: { errorClass: 'worker_error', finishReason: 'tool_use' },
        ...USAGE,
      },
    },
  },
  {
    rule: 'anything else (another domain error, a log failure) is a retryable worker_error without its message',
    outcome: stopped(new InvalidRequestError('tools.0: kind svc is not available')),
    tally: { usage: USAGE, lastText: null, lastFinishReason: null },
    context: { cancelled: false, fields: fieldsWith(NO_STRUCTURED_OUTPUT) },
    expected: {
      type: 'error',
      data: {
        error: WORKER_ERROR_MESSAGE,
        code: 'worker_error',
        finishReason: null,
        retryable: true,
        structuredOutput: NO_STRUCTURED_OUTPUT,
        ...USAGE,
      },
      outcome: {
        status: 'failed',
        finalText: null,
        error: WORKER_ERROR_MESSAGE,
        failureReason: { errorClass: 'worker_error', finishReason: null },
        ...USAGE,
      },
    },
  },
  {
    rule: 'a cancel wins over a stop: cancelled with the usage and the last text as finalText',
    outcome: stopped(new RunCancelled()),
    context: CANCELLED,
    expected: {
      type: 'cancelled',
      data: { ...USAGE },
      outcome: {
        status: 'cancelled',
        finalText: 'the last reply',
        error: null,
        failureReason: null,
        ...USAGE,
      },
    },
  },
  {
    rule: 'a cancel wins over a provider failure that came with it',
    outcome: stopped(new ModelTurnError(RATE_LIMITED, 'Half', true)),
    context: CANCELLED,
    expected: {
      type: 'cancelled',
      data: { ...USAGE },
      outcome: {
        status: 'cancelled',
        finalText: 'the last reply',
        error: null,
        failureReason: null,
        ...USAGE,
      },
    },
  },
  {
    rule: 'a cancel wins over a tool timeout',
    outcome: { kind: 'tool_timeout', call: { toolUseId: 'call_1', name: 'lookup' }, timeoutMs: 5000 },
    context: CANCELLED,
    tally: { usage: USAGE, lastText: null, lastFinishReason: 'tool_use' },
    expected: {
      type: 'cancelled',
      data: { ...USAGE },
      outcome: { status: 'cancelled', finalText: null, error: null, failureReason: null, ...USAGE },
    },
  },
  {
    rule: 'a cancel does not win over a completed reply: the run succeeded',
    outcome: { kind: 'completed', text: 'Done.' },
    context: CANCELLED,
    expected: {
      type: 'result',
      data: { subtype: 'success', text: 'Done.', structuredOutput: SCHEMA_REQUESTED, ...USAGE },
      outcome: { status: 'succeeded', finalText: 'Done.', error: null, failureReason: null, ...USAGE },
    },
  },
  {
    rule: 'a cancel does not win over a truncated final reply: it is still a truncation error',
    outcome: { kind: 'truncated', text: 'The answer is' },
    context: CANCELLED,
    expected: {
      type: 'error',
      data: {
        error: TRUNCATION_MESSAGE,
        code: 'truncation',
        errorClass: 'truncation',
        finishReason: 'max_tokens',
        partialText: 'The answer is',
        retryable: false,
        structuredOutput: SCHEMA_REQUESTED,
        ...USAGE,
      },
      outcome: {
        status: 'failed',
        finalText: 'The answer is',
        error: TRUNCATION_MESSAGE,
        failureReason: { errorClass: 'truncation', finishReason: 'max_tokens' },
        ...USAGE,
      },
    },
  },
];

describe('terminalEventFor: a loop outcome to the terminal event and the run row', () => {
  for (const row of ROWS) {
    it(row.rule, () => {
      const event = terminalEventFor(row.outcome, row.tally ?? TALLY, row.context ?? NOT_CANCELLED);
      assert.deepEqual(event, row.expected);
    });
  }

  it('the usage triple is on every terminal event and on the run row', () => {
    for (const row of ROWS) {
      const event = terminalEventFor(row.outcome, row.tally ?? TALLY, row.context ?? NOT_CANCELLED);
      const { tokens, turns, model } = event.data;
      assert.deepEqual({ tokens, turns, model }, USAGE, row.rule);
      const { outcome } = event;
      assert.deepEqual(
        { tokens: outcome.tokens, turns: outcome.turns, model: outcome.model },
        USAGE,
        row.rule,
      );
    }
  });

  it('structuredOutput is on result and error, not on cancelled', () => {
    const seen = new Set<string>();
    for (const row of ROWS) {
      const context = row.context ?? NOT_CANCELLED;
      const event = terminalEventFor(row.outcome, row.tally ?? TALLY, context);
      seen.add(event.type);
      if (event.type === 'cancelled') assert.equal('structuredOutput' in event.data, false, row.rule);
      else
        assert.deepEqual(event.data.structuredOutput, context.fields[event.type].structuredOutput, row.rule);
    }
    assert.deepEqual([...seen].sort(), ['cancelled', 'error', 'result']);
  });

  it("a control's result fields (a plan-only run's plan) go on result only: a control ending the run with text completes it", () => {
    const plan = { brief: 'b', steps: [{ title: 'one', status: 'pending' as const }] };
    const context: EndContext = {
      cancelled: false,
      fields: {
        result: { structuredOutput: SCHEMA_REQUESTED, plan },
        error: { structuredOutput: SCHEMA_REQUESTED },
      },
    };
    const result = terminalEventFor({ kind: 'completed', text: '1. one' }, TALLY, context);
    assert.equal(result.type, 'result');
    assert.deepEqual(result.type === 'result' && result.data.plan, plan);
    assert.equal(result.outcome.status, 'succeeded');
    assert.equal(result.outcome.finalText, '1. one');
    const error = terminalEventFor({ kind: 'truncated', text: 'half' }, TALLY, context);
    assert.equal(error.type, 'error');
    assert.equal('plan' in error.data, false);
  });
});

describe('isUnexpectedStop: which stops are worth an error log', () => {
  const cases: Array<{ stop: string; error: unknown; unexpected: boolean }> = [
    {
      stop: 'a classified provider failure',
      error: new ModelTurnError(RATE_LIMITED, '', false),
      unexpected: false,
    },
    { stop: 'the service shutting down', error: new ServiceShutdown(), unexpected: false },
    { stop: 'a model that no longer resolves', error: new InvalidModelError('gone'), unexpected: false },
    { stop: 'another domain error', error: new InvalidRequestError('bad'), unexpected: true },
    {
      stop: 'a model call broken off outside the provider',
      error: new InterruptedModelCall('', new Error('thread exited')),
      unexpected: true,
    },
    { stop: 'an event-log failure', error: new EventLogFailure(new Error('disk full')), unexpected: true },
    { stop: 'a plain error', error: new Error('bug'), unexpected: true },
    { stop: 'a thrown non-error', error: 'string', unexpected: true },
    // The loop checks for a cancel before asking: a cancel is never logged as an error there.
    { stop: 'a cancel, asked on its own', error: new RunCancelled(), unexpected: true },
  ];
  for (const { stop, error, unexpected } of cases) {
    it(`${stop}: ${unexpected ? 'unexpected' : 'part of a run’s life'}`, () => {
      assert.equal(isUnexpectedStop(error), unexpected);
    });
  }
});
