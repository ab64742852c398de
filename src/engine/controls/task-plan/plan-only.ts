import type { ResultPlan } from '../../../domain/run-events.ts';
import type { TaskPlan } from './plan-state.ts';

/** A plan-only run's end: its plan, as its `result` carries it, and the reply text that renders it. */
export interface PlannedResult {
  plan: ResultPlan;
  text: string;
}

/** The reply of a plan-only run whose plan has no steps and no brief. */
export const NO_PLAN_NEEDED = 'No multi-step plan was needed for this task.';

/**
 * How a plan-only run ends: its plan, and as its text the steps numbered one a line (no steps: the
 * brief alone, or a sentence saying no plan was needed).
 */
export function plannedResult(plan: TaskPlan): PlannedResult {
  const steps = plan.steps.map(({ title, status }) => ({ title, status }));
  const text =
    steps.length > 0
      ? steps.map((step, index) => `${index + 1}. ${step.title}`).join('\n')
      : plan.brief || NO_PLAN_NEEDED;
  return { plan: { brief: plan.brief, steps }, text };
}
