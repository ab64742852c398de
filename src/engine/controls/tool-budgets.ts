import type { ToolBudgetsSetting } from '../../domain/run-controls.ts';
import type { InterceptedResult, RunControl, ToolOutput } from '../loop/run-control.ts';

/** The spec's caps for tools of the internal runners, applied when `toolBudgets` is omitted. */
export const DEFAULT_TOOL_BUDGETS: Readonly<ToolBudgetsSetting> = {
  recall: { maxCalls: 4 },
  traverse: { maxCalls: 3 },
  hive_consult_ontology: { maxCalls: 4 },
  hive_search_deals: { maxCalls: 5 },
  hive_search_meetings: { maxCalls: 5 },
  hive_search_companies: { maxCalls: 5 },
  hive_search_people: { maxCalls: 5 },
  hive_search_tickets: { maxCalls: 5 },
  hive_search_conversations: { maxCalls: 5 },
  hive_search_accounts: { maxCalls: 5 },
};

/**
 * The caps a run applies, by tool name: the defaults when the spec omits the
 * field (the edge stores no key then), none for `{}`, otherwise the caller's
 * entries over the defaults.
 */
export function effectiveToolBudgets(setting: ToolBudgetsSetting | undefined): Map<string, number> {
  const entries =
    setting === undefined
      ? DEFAULT_TOOL_BUDGETS
      : Object.keys(setting).length === 0
        ? {}
        : { ...DEFAULT_TOOL_BUDGETS, ...setting };
  return new Map(Object.entries(entries).map(([tool, { maxCalls }]) => [tool, maxCalls]));
}

/** The control's state, plain JSON: attempts so far per capped tool. */
export interface ToolBudgetsState {
  attempts: Array<[tool: string, count: number]>;
}

/**
 * `toolBudgets`: every call the model makes to a capped tool is an attempt,
 * counted in emit order over the whole run, per tool; an attempt past the cap
 * is answered with a pivot-or-finalize result instead of running, and reported
 * as `tool_budget_exceeded`. Only declared tools are capped, whatever their
 * kind (an intercepted client call is never published, a server call never
 * run); the controls' host tools are their own protocol, not the caller's.
 */
export function toolBudgets(setting: ToolBudgetsSetting | undefined): RunControl {
  const caps = effectiveToolBudgets(setting);
  let attempts = new Map<string, number>();
  return {
    name: 'tool_budgets',
    beforeToolCall: ({ call, tool }): InterceptedResult | undefined => {
      if (!tool || !('kind' in tool)) return undefined;
      const maxCalls = caps.get(call.name);
      if (maxCalls === undefined) return undefined;
      const callIndex = (attempts.get(call.name) ?? 0) + 1;
      attempts.set(call.name, callIndex);
      if (callIndex <= maxCalls) return undefined;
      return {
        output: budgetSpentOutput(call.name, maxCalls),
        event: { type: 'tool_budget_exceeded', data: { tool: call.name, maxCalls, callIndex } },
      };
    },
    snapshot: (): ToolBudgetsState => ({ attempts: [...attempts] }),
    restore: (saved) => {
      attempts = new Map((saved as Partial<ToolBudgetsState>).attempts ?? []);
    },
  };
}

function budgetSpentOutput(toolName: string, maxCalls: number): ToolOutput {
  return {
    type: 'error-text',
    value: `The budget for ${toolName} (${maxCalls} ${maxCalls === 1 ? 'call' : 'calls'}) is spent: do not call it again; use what you have, try another tool, or give your final answer.`,
  };
}
