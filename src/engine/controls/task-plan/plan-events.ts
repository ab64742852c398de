import type { PlanSnapshot, RunEvent } from '../../../domain/run-events.ts';
import type { PlanMode } from './plan-setting.ts';
import type { PlanTransition, TaskPlan } from './plan-state.ts';

/**
 * Who changed the plan: the client's seed, the agent's `update_task_plan`, or the one-shot planner
 * of a plan-only run.
 */
export type PlanSource = 'seed' | 'agent' | 'planner';

export interface PlanIdentity {
  planId: string;
  mode: PlanMode;
}

/**
 * The `task_plan` events (v2) of one update: one per transition, each carrying the same snapshot
 * of the plan after the whole update; `transitionIndex` is 0-based, in the order of the changes.
 * `brief` and `steps` are mirrored at the top level for clients of the older payload.
 */
export function taskPlanEvents(
  identity: PlanIdentity,
  plan: TaskPlan,
  transitions: readonly PlanTransition[],
  source: PlanSource,
): RunEvent[] {
  const snapshot: PlanSnapshot = {
    v: 2,
    planId: identity.planId,
    revision: plan.revision,
    mode: identity.mode,
    brief: plan.brief,
    steps: plan.steps.map(({ id, title, status }) => ({ id, title, status })),
  };
  return transitions.map((transition, index) => ({
    type: 'task_plan',
    data: {
      v: 2,
      planId: snapshot.planId,
      revision: snapshot.revision,
      mode: snapshot.mode,
      source,
      transition: { kind: transition.kind, stepId: transition.stepId },
      transitionIndex: index,
      transitionCount: transitions.length,
      brief: snapshot.brief,
      steps: snapshot.steps,
      plan: snapshot,
    },
  }));
}
