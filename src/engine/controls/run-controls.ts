import type { RunSpec } from '../../domain/run-spec.ts';
import { ControlPipeline } from '../loop/control-pipeline.ts';
import { DEFAULT_MAX_TOOL_TURNS, turnBudget } from './turn-budget.ts';

/** The controls a run's spec asks for, in the order the pipeline consults them. */
export function controlPipelineFor(spec: RunSpec): ControlPipeline {
  return new ControlPipeline([turnBudget(spec.budgets?.maxToolTurns ?? DEFAULT_MAX_TOOL_TURNS)]);
}
