import type { RunOutcome } from '../domain/run.ts';
import type { RunSpec } from '../domain/run-spec.ts';
import { reasoningEffortLabel } from '../providers/reasoning.ts';
import type { ModelInfo, TokenUsage } from '../domain/usage.ts';
import { zeroUsage } from './token-usage.ts';

/** The usage triple every terminal event carries. */
export interface UsageTriple {
  tokens: TokenUsage;
  turns: number;
  model: ModelInfo;
}

export interface StructuredOutputReport {
  schemaRequested: boolean;
  schemaEnforced: boolean;
  enforcementMechanism: 'native_schema' | 'synthetic_tool' | 'none';
  unconstrainedFallbackOccurred: boolean;
}

/** The block for runs without `outputSchema`. */
export const NO_STRUCTURED_OUTPUT: StructuredOutputReport = {
  schemaRequested: false,
  schemaEnforced: false,
  enforcementMechanism: 'none',
  unconstrainedFallbackOccurred: false,
};

/**
 * A run's `structuredOutput` block. Enforcement is a later capability: a schema is reported as
 * requested and, truthfully, as not enforced by any mechanism.
 */
export function structuredOutputOf(spec: Pick<RunSpec, 'outputSchema'>): StructuredOutputReport {
  return spec.outputSchema === undefined
    ? NO_STRUCTURED_OUTPUT
    : { ...NO_STRUCTURED_OUTPUT, schemaRequested: true };
}

export interface TerminalEvent {
  type: 'result' | 'error' | 'cancelled';
  data: Record<string, unknown>;
  outcome: RunOutcome;
}

export function resultEvent(
  text: string,
  usage: UsageTriple,
  structuredOutput: StructuredOutputReport,
  subtype: 'success' | 'error_local_tool_timeout' = 'success',
  error?: string,
): TerminalEvent {
  return {
    type: 'result',
    data: { subtype, text, ...(error !== undefined && { error }), structuredOutput, ...usage },
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
  structuredOutput: StructuredOutputReport,
): TerminalEvent {
  const data: Record<string, unknown> = {
    error: failure.message,
    code: failure.errorClass ?? failure.code,
    ...(failure.errorClass !== undefined && { errorClass: failure.errorClass }),
    finishReason: failure.finishReason ?? null,
    ...(failure.partialText !== undefined && { partialText: failure.partialText }),
    ...(failure.retryable !== undefined && { retryable: failure.retryable }),
    ...(failure.apiStatus !== undefined && { apiStatus: failure.apiStatus }),
    ...(failure.apiCode !== undefined && { apiCode: failure.apiCode }),
    structuredOutput,
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
 * `model` of the terminal events: the catalog entry a run was resolved to, and the label of its
 * reasoning level (no level anywhere in the spec is thinking off).
 */
export function modelInfoOf(effective: Pick<RunSpec['effective'], 'model' | 'reasoningLevel'>): ModelInfo {
  const { model, reasoningLevel } = effective;
  return {
    id: model.id,
    provider: model.provider,
    vendorModelId: model.vendorModelId,
    reasoningEffort: reasoningEffortLabel(reasoningLevel ?? 0),
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
    structuredOutputOf(spec),
  );
}
