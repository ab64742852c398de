/** The per-run controls of an agent spec, as validated at the edge (defaults filled in where the spec gives them). */

export interface OutputSchemaSetting {
  name: string;
  schema: Record<string, unknown>;
  enforcement: 'best_effort' | 'strict';
}

export interface LoopDetectionThresholds {
  consecutiveThreshold: number;
  hardCutoffThreshold: number;
}

/** `false` disables the loop guard. */
export type LoopDetectionSetting = false | LoopDetectionThresholds;

/** Tool name → how many times it may execute over the whole run. */
export type ToolBudgetsSetting = Record<string, { maxCalls: number }>;

export interface SupervisorOptions {
  interval?: number;
  modelId?: string;
  reasoningTrigger?: false | { chars?: number; ms?: number };
}

export type SupervisorSetting = boolean | SupervisorOptions;

export interface PlanOptions {
  mode?: 'off' | 'auto' | 'required';
  steps?: string[];
  brief?: string;
  planOnly?: boolean;
}

export type PlanSetting = boolean | 'auto' | 'required' | PlanOptions;

export interface BudgetsSetting {
  /** The safety cap on tool turns. */
  maxToolTurns?: number;
}
