import type { ModelMessage } from 'ai';
import type { Logger } from 'pino';
import type { SupervisorData } from '../../../domain/run-events.ts';
import type { JudgeReview, JudgeVerdict, RunJudge } from '../../ports.ts';
import type { EmitEvent, ReportUsage, RunControl, TurnAdjustments } from '../../loop/run-control.ts';
import { FINALIZE_MESSAGE, redirectMessage } from './steering-messages.ts';
import type { SupervisorConfig } from './supervisor-setting.ts';

/** A judge that has not answered within this is given up on: the review is skipped. */
export const REVIEW_TIMEOUT_MS = 60_000;

export interface SupervisorDeps {
  /** The run's judge; asked for when the run's first turn starts (its model resolved then). */
  resolveJudge(): Promise<RunJudge>;
  /** Aborted when the run is cancelled or stops: a review in flight is abandoned. */
  signal: AbortSignal;
  logger: Pick<Logger, 'warn'>;
  reviewTimeoutMs?: number;
}

/** A verdict whose effect waits for the next turn. */
export type PendingVerdict = { action: 'redirect'; redirect: string } | { action: 'finalize' };

/** The supervisor's state, plain JSON, kept with the run's checkpoint. */
export interface SupervisorState {
  /** Model invocations since the last review. */
  callsSinceReview: number;
  pending: PendingVerdict | null;
  /** The next turn starts with steering given with a rejected final answer. */
  steerNext: boolean;
}

/** What a review is asked with: the hook's context. */
interface ReviewContext {
  emit: EmitEvent;
  conversation: readonly ModelMessage[];
  /** A mid-turn review's thoughts so far (a review at a turn boundary has none). */
  thoughts?: string;
  reportUsage: ReportUsage;
}

/**
 * `supervisor`: an LLM judge reviews the run. At the bottom of a tool round, once `interval` model
 * invocations went by since the last review (phase `turn_boundary`); and, with a reasoning trigger,
 * once per reasoning span when the span passes its chars or ms bound (phase `reasoning`), a
 * `redirect` or `finalize` verdict then cutting the turn in flight. `redirect` puts a steering user
 * message before the next turn; `finalize` makes the next turn tools-disabled, asked for the final
 * answer. A verdict that comes once a final answer is in (a mid-turn review of the last turn): a
 * redirect rejects the answer with its steering message, a finalize lets it stand.
 *
 * A turn that starts with a verdict's steering gets no mid-turn review: it is given its chance, and
 * a judge that always objects cannot cut turns forever. The judge's tokens count in the run's
 * usage; a review that fails (the call fails or times out, the reply is no verdict) is logged and
 * skipped, with no event: the run goes on as if it had not happened.
 */
export function supervisor(config: SupervisorConfig, deps: SupervisorDeps): RunControl {
  let state: SupervisorState = { callsSinceReview: 0, pending: null, steerNext: false };
  let resolvedJudge: Promise<RunJudge | undefined> | undefined;
  // Transient, within a turn: the turn that started with steering, and the span being watched.
  let steeredTurn: number | null = null;
  let span = { turn: -1, chars: 0, reviewed: false };

  function runJudge(): Promise<RunJudge | undefined> {
    resolvedJudge ??= deps.resolveJudge().catch((error: unknown) => {
      deps.logger.warn(
        { err: error },
        'the supervisor’s judge model did not resolve: the run goes on without reviews',
      );
      return undefined;
    });
    return resolvedJudge;
  }

  async function review(phase: 'turn_boundary' | 'reasoning', context: ReviewContext) {
    state.callsSinceReview = 0;
    const judge = await runJudge();
    if (!judge || deps.signal.aborted) return undefined;
    const timeout = AbortSignal.timeout(deps.reviewTimeoutMs ?? REVIEW_TIMEOUT_MS);
    let outcome: JudgeReview;
    try {
      const request = {
        phase,
        conversation: context.conversation,
        ...(context.thoughts !== undefined && { thoughts: context.thoughts }),
      };
      outcome = await judge.review(request, AbortSignal.any([deps.signal, timeout]));
    } catch (error) {
      // Cancelled or stopping: not the judge's failure.
      if (!deps.signal.aborted) {
        deps.logger.warn({ phase, err: error }, 'a supervisor review failed: skipped');
      }
      return undefined;
    }
    context.reportUsage(outcome.usage);
    const { verdict } = outcome;
    if (!verdict) {
      deps.logger.warn({ phase }, 'the supervisor’s judge gave no valid verdict: skipped');
      return undefined;
    }
    state.pending = pendingOf(verdict);
    context.emit({ type: 'supervisor', data: eventData(verdict, outcome.llmCalls, phase, judge) });
    return verdict;
  }

  const control: RunControl = {
    name: 'supervisor',
    beforeTurn: ({ turn }): TurnAdjustments | undefined => {
      void runJudge();
      state.callsSinceReview += 1;
      const { pending, steerNext } = state;
      state = { ...state, pending: null, steerNext: false };
      steeredTurn = pending || steerNext ? turn : null;
      if (!pending) return undefined;
      if (pending.action === 'redirect') return { messages: [redirectMessage(pending.redirect)] };
      return { disableTools: true, messages: [FINALIZE_MESSAGE] };
    },
    afterRound: async (round) => {
      if (state.callsSinceReview >= config.interval) await review('turn_boundary', round);
    },
    beforeFinish: () => {
      const { pending } = state;
      if (!pending) return 'accept';
      state = { ...state, pending: null };
      if (pending.action === 'finalize') return 'accept';
      state.steerNext = true;
      return { continueWith: [redirectMessage(pending.redirect)] };
    },
    snapshot: (): SupervisorState => ({ ...state }),
    restore: (saved) => {
      if (isSupervisorState(saved)) state = { ...saved };
    },
  };

  const trigger = config.reasoningTrigger;
  if (trigger) {
    control.onReasoning = (progress) => {
      const { turn, chars, ms } = progress;
      if (turn === steeredTurn) return 'continue';
      // Thoughts only grow within a span: fewer chars than last seen is a new span.
      if (turn !== span.turn || chars < span.chars) span = { turn, chars, reviewed: false };
      span.chars = chars;
      if (span.reviewed || (chars < trigger.chars && ms < trigger.ms)) return 'continue';
      span.reviewed = true;
      return review('reasoning', progress).then((verdict) =>
        verdict && verdict.action !== 'on_track' ? 'abort' : 'continue',
      );
    };
  }
  return control;
}

function pendingOf(verdict: JudgeVerdict): PendingVerdict | null {
  switch (verdict.action) {
    case 'on_track':
      return null;
    case 'redirect':
      return { action: 'redirect', redirect: verdict.redirect ?? verdict.reason };
    case 'finalize':
      return { action: 'finalize' };
  }
}

function eventData(
  verdict: JudgeVerdict,
  llmCalls: number,
  phase: 'turn_boundary' | 'reasoning',
  judge: RunJudge,
): SupervisorData {
  return {
    action: verdict.action,
    reason: verdict.reason,
    ...(verdict.action === 'redirect' && { redirect: verdict.redirect ?? verdict.reason }),
    llmCalls,
    phase,
    model: { ...judge.model },
  };
}

function isSupervisorState(value: unknown): value is SupervisorState {
  if (typeof value !== 'object' || value === null) return false;
  const state = value as Partial<SupervisorState>;
  return typeof state.callsSinceReview === 'number' && typeof state.steerNext === 'boolean';
}
