import { reasoningEffortLabel } from '../../domain/reasoning-level.ts';
import type { RunOutcome } from '../../domain/run.ts';
import type { ErrorData, ResultSubtype, TerminalRunEvent, UsageTriple } from '../../domain/run-events.ts';
import type { RunSpec } from '../../domain/run-spec.ts';
import {
  baseTerminalFields,
  type ErrorControlFields,
  type ResultControlFields,
} from '../../domain/terminal-fields.ts';
import { zeroUsage, type ModelInfo } from '../../domain/usage.ts';

/** A terminal event with what it records on the run row (in the same transaction). */
export type TerminalEvent = TerminalRunEvent & { outcome: RunOutcome };

export function resultEvent(
  text: string,
  usage: UsageTriple,
  fields: ResultControlFields,
  subtype: ResultSubtype = 'success',
  error?: string,
): TerminalEvent {
  return {
    type: 'result',
    data: { subtype, text, ...(error !== undefined && { error }), ...fields, ...usage },
    outcome: {
      status: subtype === 'success' ? 'succeeded' : 'failed',
      finalText: text,
      error: error ?? null,
      failureReason: null,
      ...usage,
    },
  };
}

export interface RunFailure {
  message: string;
  /** The spec's errorClass, when the failure has one. */
  errorClass?: string;
  /** Legacy code: equals errorClass when present, else a small token such as `worker_error`. */
  code: string;
  finishReason?: string | null;
  partialText?: string;
  retryable?: boolean;
  apiStatus?: number;
  apiCode?: string;
}

export function errorEvent(
  failure: RunFailure,
  usage: UsageTriple,
  fields: ErrorControlFields,
): TerminalEvent {
  const data: ErrorData = {
    error: failure.message,
    code: failure.errorClass ?? failure.code,
    ...(failure.errorClass !== undefined && { errorClass: failure.errorClass }),
    finishReason: failure.finishReason ?? null,
    ...(failure.partialText !== undefined && { partialText: failure.partialText }),
    ...(failure.retryable !== undefined && { retryable: failure.retryable }),
    ...(failure.apiStatus !== undefined && { apiStatus: failure.apiStatus }),
    ...(failure.apiCode !== undefined && { apiCode: failure.apiCode }),
    ...fields,
    ...usage,
  };
  return {
    type: 'error',
    data,
    outcome: {
      status: 'failed',
      finalText: failure.partialText ?? null,
      error: failure.message,
      failureReason: {
        errorClass: failure.errorClass ?? failure.code,
        finishReason: failure.finishReason ?? null,
      },
      ...usage,
    },
  };
}

/** `cancelled` carries the usage triple too: the spec puts it on every terminal event. */
export function cancelledEvent(usage: UsageTriple, finalText: string | null, reason?: string): TerminalEvent {
  return {
    type: 'cancelled',
    data: { ...(reason !== undefined && { reason }), ...usage },
    outcome: {
      status: 'cancelled',
      finalText,
      error: null,
      failureReason: null,
      ...usage,
    },
  };
}

/**
 * `model` of the terminal events: the catalog entry a run was resolved to, and the effort label of
 * its reasoning level, omitted when no level was asked for or the model has no reasoning control.
 */
export function modelInfoOf(
  effective: Pick<RunSpec['effective'], 'model' | 'reasoningLevel' | 'reasoningEffort'>,
): ModelInfo {
  const { model, reasoningLevel, reasoningEffort } = effective;
  // Runs stored before `reasoningEffort` was resolved at creation: the label of the level asked for.
  const effort =
    reasoningEffort === undefined
      ? reasoningLevel === null
        ? null
        : reasoningEffortLabel(reasoningLevel)
      : reasoningEffort;
  return {
    id: model.id,
    provider: model.provider,
    vendorModelId: model.vendorModelId,
    ...(effort !== null && { reasoningEffort: effort }),
  };
}

/** The terminal `error` of a run that ends before any model call (queueing failed, log cannot be continued). */
export function errorBeforeAnyTurn(
  failure: RunFailure,
  spec: Pick<RunSpec, 'effective' | 'outputSchema'>,
): TerminalEvent {
  return errorEvent(
    failure,
    { tokens: zeroUsage(), turns: 0, model: modelInfoOf(spec.effective) },
    baseTerminalFields(spec).error,
  );
}
