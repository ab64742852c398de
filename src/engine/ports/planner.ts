import type { ModelMessage } from 'ai';
import type { ResolvedModel } from '../../domain/model.ts';
import type { TokenUsage } from '../../domain/usage.ts';

/** What a one-shot planner plans: the run's task as its model would read it. */
export interface PlanningRequest {
  model: ResolvedModel;
  /** The run's system prompt. */
  instructions: string;
  /** The run's input (a session run's history first). */
  input: readonly ModelMessage[];
}

/** A plan as the planner drafted it: steps may be empty when the task needs no multi-step plan. */
export interface DraftedPlan {
  brief: string;
  steps: string[];
}

/** The planner's answer: the plan, or null when its reply was no plan (its cost still counts). */
export interface PlanningReply {
  plan: DraftedPlan | null;
  usage: TokenUsage;
}

/** Drafts the plan of a plan-only run with one model call. */
export interface TaskPlanner {
  /** Throws `ModelTurnError` when the model call fails, or the abort reason once `signal` aborts. */
  plan(request: PlanningRequest, signal: AbortSignal): Promise<PlanningReply>;
}
