import type { ReasoningProgress, RoundSummary } from '../../src/engine/loop/run-control.ts';

/**
 * Contexts of the control hooks for unit tests of a control, with what the loop always sets filled
 * in (no event expected, an empty conversation, usage reports dropped): a test names only what its
 * rule is about.
 */
export function roundSummary(fields: Partial<RoundSummary> = {}): RoundSummary {
  return {
    turn: 0,
    calls: [],
    emit: () => {},
    conversation: [],
    reportUsage: () => {},
    ...fields,
  };
}

export function reasoningProgress(fields: Partial<ReasoningProgress> = {}): ReasoningProgress {
  return {
    turn: 0,
    chars: 0,
    ms: 0,
    emit: () => {},
    conversation: [],
    thoughts: '',
    reportUsage: () => {},
    ...fields,
  };
}
