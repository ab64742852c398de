import type { DraftedPlan } from '../../engine/ports.ts';
import { firstJsonObject } from '../supervisor-judge/judge-verdict.ts';

/**
 * The plan in a planner's reply, read leniently: the first JSON object in the text (inside a code
 * fence or prose too); `steps` as strings or as objects with a `title` (a step without text is
 * dropped; clamping is the plan's own). Null when there is no such object, or it has neither a
 * brief nor a `steps` array.
 */
export function parsePlan(reply: string): DraftedPlan | null {
  const object = firstJsonObject(reply);
  if (!object) return null;
  const brief = typeof object.brief === 'string' ? object.brief.trim() : '';
  if (!Array.isArray(object.steps)) return brief === '' ? null : { brief, steps: [] };
  const steps = object.steps.map(stepTitle).filter((title) => title !== '');
  return { brief, steps };
}

function stepTitle(step: unknown): string {
  if (typeof step === 'string') return step.trim();
  if (typeof step === 'object' && step !== null && 'title' in step && typeof step.title === 'string') {
    return step.title.trim();
  }
  return '';
}
