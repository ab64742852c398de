import type { ErrorData, ResultData, StructuredOutputReport } from './run-events.ts';
import type { RunSpec } from './run-spec.ts';

/** The fields of a terminal `result` that run controls report (the loop fills in the rest). */
export type ResultControlFields = Pick<ResultData, 'structuredOutput' | 'plan'>;

/** The fields of a terminal `error` that run controls report. */
export type ErrorControlFields = Pick<ErrorData, 'structuredOutput'>;

/** What the controls report on whichever terminal event ends the run (`cancelled` carries none). */
export interface TerminalFields {
  result: ResultControlFields;
  error: ErrorControlFields;
}

/** One control's share of the terminal fields: it overrides what it names, on the events it names. */
export interface TerminalFieldsContribution {
  result?: Partial<ResultControlFields>;
  error?: Partial<ErrorControlFields>;
}

/** The `structuredOutput` block of runs without `outputSchema`. */
export const NO_STRUCTURED_OUTPUT: StructuredOutputReport = {
  schemaRequested: false,
  schemaEnforced: false,
  enforcementMechanism: 'none',
  unconstrainedFallbackOccurred: false,
};

/**
 * The terminal fields when no control reports any: a run that ended before its controls started
 * (or has none), with its schema requested and, truthfully, not enforced.
 */
export function baseTerminalFields(spec: Pick<RunSpec, 'outputSchema'>): TerminalFields {
  const structuredOutput =
    spec.outputSchema === undefined
      ? NO_STRUCTURED_OUTPUT
      : { ...NO_STRUCTURED_OUTPUT, schemaRequested: true };
  return { result: { structuredOutput }, error: { structuredOutput } };
}

/** `base` with each contribution applied in order (a later contribution overrides an earlier one). */
export function withContributions(
  base: TerminalFields,
  contributions: readonly TerminalFieldsContribution[],
): TerminalFields {
  let fields = base;
  for (const { result, error } of contributions) {
    fields = { result: { ...fields.result, ...result }, error: { ...fields.error, ...error } };
  }
  return fields;
}
