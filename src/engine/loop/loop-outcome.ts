import { ControlFailure } from '../../domain/control-errors.ts';
import { DomainError } from '../../domain/errors.ts';
import type { UsageTriple } from '../../domain/run-events.ts';
import type { TerminalFields } from '../../domain/terminal-fields.ts';
import { ModelTurnError } from '../ports.ts';
import { ServiceShutdown } from './abort-reasons.ts';
import { InterruptedModelCall } from './interrupted-model-call.ts';
import {
  cancelledEvent,
  errorEvent,
  resultEvent,
  type RunFailure,
  type TerminalEvent,
} from './terminal-events.ts';

/** How a run's turn loop ended. */
export type LoopOutcome =
  /** The model gave its final reply, or a control ended the run with one. */
  | { kind: 'completed'; text: string }
  /** The final reply ran out of output tokens. */
  | { kind: 'truncated'; text: string }
  /** A client tool call got no answer in time. */
  | { kind: 'tool_timeout'; call: { toolUseId: string; name: string }; timeoutMs: number }
  /** The loop stopped on an error (a provider failure, a cancel, anything unexpected). */
  | { kind: 'stopped'; error: unknown };

/** What the run has spent and said when its loop ends. */
export interface RunTally {
  usage: UsageTriple;
  /** The last assistant text: the final text of a cancelled or timed-out run. */
  lastText: string | null;
  /** The last assistant_message's finish reason: an `error` event mirrors it. */
  lastFinishReason: string | null;
}

export interface EndContext {
  /** The client cancelled the run: a loop stopped or timed out after that ends `cancelled`. */
  cancelled: boolean;
  /** What the run's controls report on its terminal event. */
  fields: TerminalFields;
}

/** The one terminal event a run's loop outcome ends it with. */
export function terminalEventFor(outcome: LoopOutcome, tally: RunTally, context: EndContext): TerminalEvent {
  const { usage } = tally;
  if (context.cancelled && (outcome.kind === 'stopped' || outcome.kind === 'tool_timeout')) {
    return cancelledEvent(usage, tally.lastText);
  }
  const { fields } = context;
  const fail = (failure: RunFailure) => errorEvent(failure, usage, fields.error);
  switch (outcome.kind) {
    case 'completed':
      return resultEvent(outcome.text, usage, fields.result);
    case 'truncated':
      return fail({
        message: 'the model ran out of output tokens before finishing its reply',
        errorClass: 'truncation',
        code: 'truncation',
        finishReason: 'max_tokens',
        partialText: outcome.text,
        retryable: false,
      });
    case 'tool_timeout': {
      const { call, timeoutMs } = outcome;
      return resultEvent(
        tally.lastText ?? '',
        usage,
        fields.result,
        'error_local_tool_timeout',
        `local tool ${call.name} (${call.toolUseId}) got no result within ${timeoutMs} ms`,
      );
    }
    case 'stopped':
      return fail(failureOf(outcome.error, tally.lastFinishReason));
  }
}

/** A stop that is not part of a run's life (a provider failing, its model gone): worth an error log. */
export function isUnexpectedStop(error: unknown): boolean {
  return !(
    error instanceof ModelTurnError ||
    error instanceof ServiceShutdown ||
    error instanceof ControlFailure ||
    (error instanceof DomainError && error.code === 'invalid_model')
  );
}

function failureOf(error: unknown, lastFinishReason: string | null): RunFailure {
  if (error instanceof ModelTurnError) {
    const { failure } = error;
    return {
      message: failure.message,
      errorClass: failure.errorClass,
      code: failure.errorClass,
      finishReason: lastFinishReason,
      ...(error.partialText !== '' && { partialText: error.partialText }),
      retryable: failure.retryable,
      ...(failure.apiStatus !== undefined && { apiStatus: failure.apiStatus }),
      ...(failure.apiCode !== undefined && { apiCode: failure.apiCode }),
    };
  }
  if (error instanceof ControlFailure) {
    const { partialText, apiStatus, apiCode } = error.details;
    return {
      message: error.message,
      errorClass: error.errorClass,
      code: error.errorClass,
      finishReason: lastFinishReason,
      ...(partialText !== undefined && { partialText }),
      retryable: false,
      ...(apiStatus !== undefined && { apiStatus }),
      ...(apiCode !== undefined && { apiCode }),
    };
  }
  if (error instanceof DomainError && error.code === 'invalid_model') {
    return {
      message: error.message,
      errorClass: 'invalid_request',
      code: 'invalid_request',
      retryable: false,
    };
  }
  return {
    message: 'the worker failed while running the agent',
    code: 'worker_error',
    finishReason: lastFinishReason,
    ...(error instanceof InterruptedModelCall &&
      error.partialText !== '' && { partialText: error.partialText }),
    retryable: true,
  };
}
