import type { RunSpec } from '../../domain/run-spec.ts';
import { ControlPipeline } from '../loop/control-pipeline.ts';
import type { ControlRunContext } from './control-context.ts';
import { LOOP_DETECTION_DEFAULTS, loopGuard } from './loop-guard.ts';
import { structuredOutputControl } from './structured-output/structured-output-control.ts';
import { supervisorControls } from './supervisor/run-supervisor.ts';
import { taskPlanControl } from './task-plan/task-plan-control.ts';
import { toolBudgets } from './tool-budgets.ts';
import { DEFAULT_MAX_TOOL_TURNS, turnBudget } from './turn-budget.ts';

/**
 * The controls a run's spec asks for, in the order the pipeline consults them.
 * Tool budgets come before the loop guard: the first interception wins, so the
 * budget sees every attempt (its `callIndex` stays the attempt count inside a
 * loop) and a call past its cap is reported as such; the guard still judges
 * the whole batch, budget-intercepted calls included.
 */
export function controlPipelineFor(spec: RunSpec, context?: ControlRunContext): ControlPipeline {
  // The guard leaves every control's host tools out of its signatures (asked once turns start).
  const isHostTool = (name: string): boolean => pipeline.hostTool(name) !== undefined;
  const pipeline: ControlPipeline = new ControlPipeline([
    turnBudget(spec.budgets?.maxToolTurns ?? DEFAULT_MAX_TOOL_TURNS),
    // Before the budgets: a call held back until the plan exists never ran, so it spends no budget.
    ...[taskPlanControl(spec.plan, context)].filter((control) => control !== undefined),
    toolBudgets(spec.toolBudgets),
    ...(spec.loopDetection === false
      ? []
      : [loopGuard(spec.loopDetection ?? LOOP_DETECTION_DEFAULTS, isHostTool)]),
    // After the guards: its steering follows their messages, and it judges a final answer only when
    // the plan guard let it stand. It needs the run's context to reach its judge.
    ...supervisorControls(spec.supervisor, context),
    // After the supervisor: the reply's format matters once the reply is accepted as final.
    ...[structuredOutputControl(spec)].filter((control) => control !== undefined),
  ]);
  return pipeline;
}
