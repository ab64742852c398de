import type { PlanStepStatus } from '../../../domain/run-events.ts';

export const PLAN_STEP_STATUSES = [
  'pending',
  'in_progress',
  'done',
  'blocked',
  'skipped',
] as const satisfies readonly PlanStepStatus[];

/**
 * What a plan may hold; more is clamped, not refused. The same bounds as the edge's clamps of a
 * seeded `plan` (PLAN_STEPS_MAX, PLAN_STEP_MAX_CHARS, PLAN_BRIEF_MAX_CHARS), so a checklist reads
 * the same whether the client seeded it or the agent wrote it.
 */
export const PLAN_LIMITS = { steps: 100, titleChars: 500, briefChars: 300 } as const;

export interface PlanStep {
  /** `s1`, `s2`, …: stable for the plan's life, never reused once a step is removed. */
  id: string;
  title: string;
  status: PlanStepStatus;
}

/** The checklist as the control keeps it (plain JSON: it is part of the control's snapshot). */
export interface TaskPlan {
  /** 1 when the plan is created, one more for every update that changes it. */
  revision: number;
  brief: string;
  steps: PlanStep[];
  /** The number of the next new step's id. */
  nextStep: number;
}

/** A plan as written by the agent or the client: the whole checklist, in order. */
export interface PlanDraft {
  /** Omitted: the brief stays as it was. */
  brief?: string;
  /** A given `id` names the existing step it updates; without one, a step is matched by title. */
  steps: Array<{ id?: string; title: string; status: PlanStepStatus }>;
}

export type PlanTransitionKind =
  | 'seeded'
  | 'created'
  | 'brief_changed'
  | 'step_added'
  | 'step_removed'
  | 'step_renamed'
  | 'steps_reordered'
  | `step_${PlanStepStatus}`;

/** One change of an update; `stepId` is null for changes to the plan as a whole. */
export interface PlanTransition {
  kind: PlanTransitionKind;
  stepId: string | null;
}

export interface PlanRevision {
  plan: TaskPlan;
  /** Empty when the update changed nothing (the plan keeps its revision). */
  transitions: PlanTransition[];
}

export function isPlanStepStatus(value: unknown): value is PlanStepStatus {
  return PLAN_STEP_STATUSES.some((status) => status === value);
}

/** Trims and clamps a draft; steps with an empty title are dropped. */
export function clampedDraft(draft: PlanDraft): PlanDraft {
  const steps = draft.steps
    .map((step) => ({ ...step, title: step.title.trim().slice(0, PLAN_LIMITS.titleChars) }))
    .filter((step) => step.title !== '')
    .slice(0, PLAN_LIMITS.steps);
  if (draft.brief === undefined) return { steps };
  return { brief: draft.brief.trim().slice(0, PLAN_LIMITS.briefChars), steps };
}

/** A new plan at revision 1: one transition for its creation. */
export function newPlan(draft: PlanDraft, kind: 'seeded' | 'created', defaultBrief = ''): PlanRevision {
  const { brief, steps } = clampedDraft(draft);
  const plan: TaskPlan = {
    revision: 1,
    brief: brief ?? defaultBrief,
    steps: steps.map((step, index) => ({ id: stepId(index + 1), title: step.title, status: step.status })),
    nextStep: steps.length + 1,
  };
  return { plan, transitions: [{ kind, stepId: null }] };
}

/**
 * The plan after an update giving the whole checklist: matched steps keep their id, new ones get
 * the next id, steps left out are removed. One transition per change, in the draft's order, then
 * removals and a reordering.
 */
export function revisedPlan(current: TaskPlan, draft: PlanDraft): PlanRevision {
  const { brief, steps: drafted } = clampedDraft(draft);
  const transitions: PlanTransition[] = [];
  if (brief !== undefined && brief !== current.brief)
    transitions.push({ kind: 'brief_changed', stepId: null });

  const claimed = new Set<string>();
  let nextStep = current.nextStep;
  const steps: PlanStep[] = [];
  for (const step of drafted) {
    const match = matchingStep(current.steps, step, claimed);
    if (!match) {
      const id = stepId(nextStep++);
      steps.push({ id, title: step.title, status: step.status });
      transitions.push({ kind: 'step_added', stepId: id });
      continue;
    }
    claimed.add(match.id);
    steps.push({ id: match.id, title: step.title, status: step.status });
    if (step.title !== match.title) transitions.push({ kind: 'step_renamed', stepId: match.id });
    if (step.status !== match.status) transitions.push({ kind: `step_${step.status}`, stepId: match.id });
  }
  for (const step of current.steps) {
    if (!claimed.has(step.id)) transitions.push({ kind: 'step_removed', stepId: step.id });
  }
  const keptBefore = current.steps.filter((step) => claimed.has(step.id)).map((step) => step.id);
  const keptAfter = steps.filter((step) => claimed.has(step.id)).map((step) => step.id);
  if (keptBefore.some((id, index) => keptAfter[index] !== id)) {
    transitions.push({ kind: 'steps_reordered', stepId: null });
  }

  if (transitions.length === 0) return { plan: current, transitions };
  return {
    plan: { revision: current.revision + 1, brief: brief ?? current.brief, steps, nextStep },
    transitions,
  };
}

/** Steps still to finish: neither done nor skipped (a blocked step is still open). */
export function openSteps(plan: TaskPlan): PlanStep[] {
  return plan.steps.filter((step) => step.status !== 'done' && step.status !== 'skipped');
}

function stepId(number: number): string {
  return `s${number}`;
}

/** By id first; else the first unclaimed step of the same title (case aside), as models restate them. */
function matchingStep(
  steps: readonly PlanStep[],
  drafted: PlanDraft['steps'][number],
  claimed: ReadonlySet<string>,
): PlanStep | undefined {
  const byId = drafted.id === undefined ? undefined : steps.find((step) => step.id === drafted.id);
  if (byId && !claimed.has(byId.id)) return byId;
  const title = drafted.title.toLowerCase();
  return steps.find((step) => !claimed.has(step.id) && step.title.toLowerCase() === title);
}
