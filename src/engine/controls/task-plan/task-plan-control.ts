import { randomBytes } from 'node:crypto';
import { isJsonObject } from '../../../domain/json-object.ts';
import type { PlanSetting } from '../../../domain/run-controls.ts';
import type {
  ContinueWith,
  EmitEvent,
  FinalAnswer,
  HostTool,
  InterceptedResult,
  RunControl,
  ToolCallContext,
  ToolOutput,
  TurnAdjustments,
  TurnContext,
} from '../../loop/run-control.ts';
import { taskPlanEvents, type PlanSource } from './plan-events.ts';
import {
  NO_STEPS_TEXT,
  openStepsReminder,
  planFirstText,
  requiredNotice,
  seededNotice,
  UPDATE_TASK_PLAN,
  updatedText,
} from './plan-prompts.ts';
import { planConfigOf, type PlanConfig } from './plan-setting.ts';
import {
  newPlan,
  openSteps,
  revisedPlan,
  type PlanDraft,
  type PlanRevision,
  type TaskPlan,
} from './plan-state.ts';
import { planDraftOf, updateTaskPlanTool } from './update-task-plan-tool.ts';

/** Final answers refused for open steps, at most, per run: then the answer stands. */
export const MAX_FINISH_REJECTIONS = 2;

/** The control's state, as kept with the run's checkpoint. */
export interface TaskPlanState {
  /** Drawn once per run; the checkpoint keeps it, so a takeover goes on with the same plan. */
  planId: string;
  plan: TaskPlan | null;
  /** Whether the first turn's notice (and a seeded plan's event) went out. */
  started: boolean;
  rejections: number;
}

/**
 * The spec's `plan` control: the agent keeps a task plan with the host tool `update_task_plan`
 * (offered every turn), and each change goes to the client as `task_plan` events. In mode
 * `required`, declared tools wait for a plan and a final answer given while steps are open is sent
 * back, a bounded number of times. Undefined when the setting asks for no plan.
 */
/**
 * `runId`, when known, names the plan (`plan_<run id>`): a worker that takes the run over before
 * its first checkpoint builds the same plan, so the seeded plan it announces is the one the log holds.
 */
export function taskPlanControl(setting: PlanSetting | undefined, runId?: string): RunControl | undefined {
  const config = planConfigOf(setting);
  return config && new TaskPlanControl(config, runId);
}

export class TaskPlanControl implements RunControl {
  readonly name = 'task_plan';
  readonly hostTools: readonly HostTool[];
  readonly #config: PlanConfig;
  #state: TaskPlanState;

  constructor(config: PlanConfig, runId?: string) {
    this.#config = config;
    this.hostTools = [updateTaskPlanTool(config.mode, (draft, emit) => this.#update(draft, emit))];
    this.#state = {
      planId: `plan_${runId?.replace(/^run_/, '') ?? randomBytes(10).toString('hex')}`,
      plan: config.seed ? newPlan(config.seed, 'seeded').plan : null,
      started: false,
      rejections: 0,
    };
  }

  beforeTurn({ emit }: TurnContext): TurnAdjustments {
    const adjustments: TurnAdjustments = { offerHostTools: [UPDATE_TASK_PLAN] };
    if (this.#state.started) return adjustments;
    this.#state.started = true;
    const { plan } = this.#state;
    if (plan) {
      this.#emit(emit, { plan, transitions: [{ kind: 'seeded', stepId: null }] }, 'seed');
      return { ...adjustments, messages: [seededNotice(plan)] };
    }
    return this.#config.mode === 'required' ? { ...adjustments, messages: [requiredNotice()] } : adjustments;
  }

  beforeToolCall({ call, round, tool }: ToolCallContext): InterceptedResult | void {
    if (this.#config.mode !== 'required' || this.#state.plan) return;
    // Only the declared tools are substantive: host tools (this one, other controls') stay callable.
    if (!tool || !('kind' in tool)) return;
    // A plan written earlier in the same round exists by the time this call runs (emit order).
    const before = round.slice(0, round.indexOf(call));
    if (before.some((earlier) => earlier.name === UPDATE_TASK_PLAN && planDraftOf(earlier.input))) return;
    return { output: { type: 'error-text', value: planFirstText(call.name) } };
  }

  beforeFinish(final: FinalAnswer): 'accept' | ContinueWith {
    const { plan } = this.#state;
    if (this.#config.mode !== 'required' || !plan) return 'accept';
    if (this.#state.rejections >= MAX_FINISH_REJECTIONS || !toolsWereCallable(final)) return 'accept';
    const open = openSteps(plan);
    if (open.length === 0) return 'accept';
    this.#state.rejections++;
    return { continueWith: [openStepsReminder(open)] };
  }

  snapshot(): TaskPlanState {
    return structuredClone(this.#state);
  }

  restore(state: unknown): void {
    if (isTaskPlanState(state)) this.#state = structuredClone(state);
  }

  #update(draft: PlanDraft | undefined, emit: EmitEvent): ToolOutput {
    if (!draft) return { type: 'error-text', value: NO_STEPS_TEXT };
    const current = this.#state.plan;
    const revision = current
      ? revisedPlan(current, draft)
      : newPlan(draft, 'created', this.#config.seed?.brief ?? this.#config.brief);
    this.#state.plan = revision.plan;
    this.#emit(emit, revision, 'agent');
    return { type: 'text', value: updatedText(revision.plan, revision.transitions.length > 0) };
  }

  #emit(emit: EmitEvent, { plan, transitions }: PlanRevision, source: PlanSource): void {
    const identity = { planId: this.#state.planId, mode: this.#config.mode };
    for (const event of taskPlanEvents(identity, plan, transitions, source)) emit(event);
  }
}

/**
 * A final answer given on a turn without callable tools (a tools-disabled turn) cannot be sent back
 * to work on: the model could not update the plan.
 */
function toolsWereCallable(final: FinalAnswer): boolean {
  return final.toolsCallable;
}

function isTaskPlanState(value: unknown): value is TaskPlanState {
  return (
    isJsonObject(value) &&
    typeof value.planId === 'string' &&
    (value.plan === null || isJsonObject(value.plan)) &&
    typeof value.started === 'boolean' &&
    typeof value.rejections === 'number'
  );
}
