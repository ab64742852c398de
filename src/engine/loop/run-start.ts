import type { ModelMessage } from 'ai';
import type { ResolvedModel } from '../../domain/model.ts';
import type { ModelCall, ProviderFailure, SchemaValidator } from '../ports.ts';

/**
 * What a control learns when the run's execution starts (again after a park or a takeover): the
 * model the run resolved to, whose protocol decides what a provider accepts, and the names of
 * every tool the run may offer.
 */
export interface RunStart {
  model: ResolvedModel;
  validator: SchemaValidator;
  /** The declared tools and every control's host tools, by name. */
  tools: readonly string[];
  /** The run's system prompt and input, as its first turn is asked with (set by the loop). */
  conversation?: { instructions: string; input: readonly ModelMessage[] };
}

/** A model call the provider refused for good (no retry left, nothing streamed). */
export interface RefusedCall {
  turn: number;
  call: ModelCall;
  failure: ProviderFailure;
}

/** A control's answer to a refused call: send it again changed, or end the run with its own failure. */
export type RefusalAnswer = { retryWith: ModelCall } | { failWith: Error };
