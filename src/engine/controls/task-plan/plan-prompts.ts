import type { ModelMessage } from 'ai';
import { UPDATE_TASK_PLAN } from '../../../domain/host-tools.ts';
import type { PlanMode } from './plan-setting.ts';
import type { PlanStep, TaskPlan } from './plan-state.ts';

/** What the model reads about its task plan: the tool's description, notices and results. */

export function toolDescription(mode: PlanMode): string {
  const base =
    'Create or update your task plan: a short checklist of the steps of this task, shown to the user as ' +
    'you work. Send the complete checklist every time, in order (a step left out is removed), each step ' +
    'with its status: pending, in_progress, done, blocked or skipped. Keep the id of an existing step ' +
    '(s1, s2, … as returned) to update it. Mark a step in_progress when you start it and done when it is ' +
    'finished.';
  return mode === 'required'
    ? `${base} This run requires a plan: create it before using other tools, and finish or skip every step before your final answer.`
    : `${base} Use it when the task takes several steps; a simple question needs no plan.`;
}

/** The checklist, one step a line. */
export function checklist(plan: TaskPlan): string {
  const lines = plan.steps.map((step) => `${step.id} [${step.status}] ${step.title}`);
  return plan.brief === '' ? lines.join('\n') : [`Brief: ${plan.brief}`, ...lines].join('\n');
}

export function updatedText(plan: TaskPlan, changed: boolean): string {
  const head = changed
    ? `Task plan updated (revision ${plan.revision}).`
    : `Task plan unchanged (revision ${plan.revision}).`;
  return `${head}\n${checklist(plan)}`;
}

export const NO_STEPS_TEXT =
  'The task plan was not changed: give `steps`, a non-empty array of { id?, title, status } with a non-empty title each.';

/** Before the first turn of a run whose client seeded the plan: the model learns the checklist. */
export function seededNotice(plan: TaskPlan): ModelMessage {
  return notice(
    `This task comes with a plan to follow:\n${checklist(plan)}\n` +
      `Keep it current with ${UPDATE_TASK_PLAN} as you work: mark a step in_progress when you start it and done when it is finished.`,
  );
}

/** Before the first turn of a run in mode required. */
export function requiredNotice(): ModelMessage {
  return notice(
    `This run requires a task plan: before using other tools, call ${UPDATE_TASK_PLAN} with the steps you will take. ` +
      'Keep it current as you work, and finish or skip every step before your final answer.',
  );
}

/** The result of a substantive call made before the plan exists, in mode required. */
export function planFirstText(toolName: string): string {
  return `Not run: this run requires a task plan first. Call ${UPDATE_TASK_PLAN} with the steps of this task, then call ${toolName} again.`;
}

/** Appended after a final answer given while steps are still open. */
export function openStepsReminder(open: readonly PlanStep[]): ModelMessage {
  const lines = open.map((step) => `${step.id} [${step.status}] ${step.title}`).join('\n');
  return notice(
    `Your task plan still has open steps:\n${lines}\n` +
      `Work through them, or call ${UPDATE_TASK_PLAN} to mark them done or skipped, then give your final answer.`,
  );
}

function notice(text: string): ModelMessage {
  return { role: 'user', content: `[task plan] ${text}` };
}
