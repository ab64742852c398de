import type { Logger } from 'pino';
import type { RunJudges, TaskPlanner } from '../ports.ts';

/**
 * What a run's controls may need beyond its spec, given by the worker that executes the run: the
 * controls that make model calls of their own (the supervisor's judge, a plan-only run's planner)
 * reach them through it.
 */
export interface ControlRunContext {
  runId: string;
  workspaceId: string;
  /** Aborted when the run is cancelled or its execution stops: a control's own call in flight gives up. */
  signal: AbortSignal;
  logger: Logger;
  judges: RunJudges;
  planner: TaskPlanner;
}
