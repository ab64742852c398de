/** The spec's errorClasses a run control ends a run with. */
export type ControlErrorClass =
  | 'structured_output_schema_rejected'
  | 'structured_output_not_supported'
  | 'structured_output_not_enforced'
  /** A plan-only run's planner replied with no plan. */
  | 'unknown';

export interface ControlFailureDetails {
  /** The reply that failed the control's rule (the run's `finalText`, diagnostic only). */
  partialText?: string;
  /** The provider's status and code, when a provider refusal is why. */
  apiStatus?: number;
  apiCode?: string;
}

/**
 * Thrown by a run control (from any of its hooks) to end the run with an error of its own: the
 * loop stops there and the terminal `error` carries this errorClass, never retryable.
 */
export class ControlFailure extends Error {
  readonly errorClass: ControlErrorClass;
  readonly details: ControlFailureDetails;
  constructor(errorClass: ControlErrorClass, message: string, details: ControlFailureDetails = {}) {
    super(message);
    this.name = 'ControlFailure';
    this.errorClass = errorClass;
    this.details = details;
  }
}
