import type { ModelMessage } from 'ai';
import type { SupervisorData } from '../../domain/run-events.ts';
import type { TokenUsage } from '../../domain/usage.ts';

/** What the supervisor's judge decided about a run so far. */
export interface JudgeVerdict {
  action: SupervisorData['action'];
  reason: string;
  /** The steering text for the agent (a `redirect` always has one). */
  redirect?: string;
}

/** The judge model, as the `supervisor` event names it. */
export type JudgeModel = NonNullable<SupervisorData['model']>;

/** What the judge is shown: the conversation so far and, mid-turn, the agent's reasoning in flight. */
export interface JudgeReviewRequest {
  phase: NonNullable<SupervisorData['phase']>;
  conversation: readonly ModelMessage[];
  /** The thoughts of the turn in flight (phase `reasoning`). */
  thoughts?: string;
}

/** One review: the verdict, or null when the judge's reply was not a valid verdict (its cost still counts). */
export interface JudgeReview {
  verdict: JudgeVerdict | null;
  usage: TokenUsage;
  /** The judge's model calls for this review. */
  llmCalls: number;
}

/** A run's judge, its model already resolved. */
export interface RunJudge {
  readonly model: JudgeModel;
  /** Throws when the judge's model call fails (a provider error, or the abort reason once `signal` aborts). */
  review(request: JudgeReviewRequest, signal: AbortSignal): Promise<JudgeReview>;
}

/** Where a run's supervisor gets its judge. */
export interface RunJudges {
  /**
   * The judge on `modelId` (the supervisor's, in the grammar of a run's `modelId`; omitted: the
   * workspace default), resolved in the run's workspace; throws `InvalidModelError` when it does not resolve.
   */
  judgeFor(workspaceId: string, modelId: string | undefined): Promise<RunJudge>;
}
