import { UPDATE_TASK_PLAN } from '../../../domain/host-tools.ts';
import { isJsonObject } from '../../../domain/json-object.ts';
import type { EmitEvent, HostTool, ToolOutput } from '../../loop/run-control.ts';
import type { PlanMode } from './plan-setting.ts';
import { clampedDraft, isPlanStepStatus, PLAN_STEP_STATUSES, type PlanDraft } from './plan-state.ts';
import { toolDescription } from './plan-prompts.ts';

/** No length bounds here: an over-long plan is clamped, not refused (the model would only retry). */
const INPUT_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    brief: { type: 'string', description: 'One-line objective of the task.' },
    steps: {
      type: 'array',
      minItems: 1,
      description: 'The complete checklist, in order.',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'The id of an existing step (s1, s2, …); omit for a new step.' },
          title: { type: 'string', description: 'What the step does, in a few words.' },
          status: { type: 'string', enum: [...PLAN_STEP_STATUSES] },
        },
        required: ['title', 'status'],
      },
    },
  },
  required: ['steps'],
};

/** The plan a call's arguments give, clamped; undefined when they give no step with a title. */
export function planDraftOf(args: unknown): PlanDraft | undefined {
  if (!isJsonObject(args) || !Array.isArray(args.steps)) return undefined;
  const steps = args.steps.flatMap((step): PlanDraft['steps'] => {
    if (!isJsonObject(step) || typeof step.title !== 'string') return [];
    const status = isPlanStepStatus(step.status) ? step.status : 'pending';
    return [{ ...(typeof step.id === 'string' && { id: step.id }), title: step.title, status }];
  });
  const draft = clampedDraft({ ...(typeof args.brief === 'string' && { brief: args.brief }), steps });
  return draft.steps.length > 0 ? draft : undefined;
}

/** The host tool the agent keeps its plan with; `apply` records the draft and says what the model gets. */
export function updateTaskPlanTool(
  mode: PlanMode,
  apply: (draft: PlanDraft | undefined, emit: EmitEvent) => ToolOutput,
): HostTool {
  return {
    name: UPDATE_TASK_PLAN,
    description: toolDescription(mode),
    inputSchema: INPUT_SCHEMA,
    execute: (args, { emit }) => apply(planDraftOf(args), emit),
  };
}
