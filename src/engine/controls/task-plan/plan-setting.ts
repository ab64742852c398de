import type { PlanSetting } from '../../../domain/run-controls.ts';
import type { PlanDraft } from './plan-state.ts';

export type PlanMode = 'auto' | 'required';

/** A `plan` setting that asks for planning, in the one shape the control reads. */
export interface PlanConfig {
  mode: PlanMode;
  /** The client's checklist: the plan exists from the start, its steps pending. */
  seed?: PlanDraft;
  /** The client's brief without steps: the brief of the plan the agent creates, unless it gives one. */
  brief?: string;
  /** The run ends with its plan (the seed, else the planner's) before any model turn. */
  planOnly?: true;
}

/**
 * Reads the spec's `plan` forms: omitted, `false` and mode `off` ask for no plan; `true` and `auto`
 * for an optional one; `required` for one before substantive tools; an object may seed the steps.
 * `planOnly` plans, then ends the run without the agent loop: with the seed as the plan, else with
 * one drafted by a one-shot planner; its mode is `auto` whatever `mode` says (it only names the plan).
 */
export function planConfigOf(setting: PlanSetting | undefined): PlanConfig | undefined {
  if (setting === undefined || setting === false) return undefined;
  if (setting === true || setting === 'auto') return { mode: 'auto' };
  if (setting === 'required') return { mode: 'required' };
  const mode = setting.planOnly ? 'auto' : (setting.mode ?? 'auto');
  if (mode === 'off') return undefined;
  const planOnly = setting.planOnly === true && { planOnly: true as const };
  const steps = (setting.steps ?? []).filter((title) => title.trim() !== '');
  if (steps.length === 0) {
    return { mode, ...planOnly, ...(setting.brief !== undefined && { brief: setting.brief }) };
  }
  return {
    mode,
    ...planOnly,
    seed: {
      ...(setting.brief !== undefined && { brief: setting.brief }),
      steps: steps.map((title) => ({ title, status: 'pending' })),
    },
  };
}
