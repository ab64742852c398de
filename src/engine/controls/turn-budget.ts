import type { RunControl } from '../loop/run-control.ts';

/** The safety cap on tool turns when the spec's `budgets.maxToolTurns` is not given. */
export const DEFAULT_MAX_TOOL_TURNS = 50;

/**
 * `budgets.maxToolTurns`: past the cap the model gets a tools-disabled turn
 * (tool choice `none`) instead of looping on, and the run ends with its reply.
 */
export function turnBudget(maxToolTurns: number): RunControl {
  return {
    name: 'turn_budget',
    beforeTurn: ({ turn }) => (turn >= maxToolTurns ? { disableTools: true } : undefined),
  };
}
