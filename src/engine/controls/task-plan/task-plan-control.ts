import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { ControlFailure } from '../../../domain/control-errors.ts';
import { UPDATE_TASK_PLAN } from '../../../domain/host-tools.ts';
import { isJsonObject } from '../../../domain/json-object.ts';
import type { PlanSetting } from '../../../domain/run-controls.ts';
import type { TerminalFieldsContribution } from '../../../domain/terminal-fields.ts';
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
import type { RunStart } from '../../loop/run-start.ts';
import type { TaskPlanner } from '../../ports.ts';
import { plannedResult, type PlannedResult } from './plan-only.ts';
import { taskPlanEvents, type PlanSource } from './plan-events.ts';
import {
  NO_STEPS_TEXT,
  openStepsReminder,
  planFirstText,
  requiredNotice,
  seededNotice,
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
 * What the control needs of the run beyond its setting: `runId` names the plan (`plan_<run id>`),
 * so a worker that takes the run over before its first checkpoint builds the same plan and the
 * seeded plan it announces is the one the log holds; a plan-only run without steps drafts its plan
 * with `planner`.
 */
export interface TaskPlanContext {
  runId: string;
  planner: TaskPlanner;
  /** Aborted when the run is cancelled or stops: the planner's call gives up. */
  signal: AbortSignal;
  logger: Pick<Logger, 'info'>;
}

export function taskPlanControl(
  setting: PlanSetting | undefined,
  context?: TaskPlanContext,
): RunControl | undefined {
  const config = planConfigOf(setting);
  return config && new TaskPlanControl(config, context);
}

export class TaskPlanControl implements RunControl {
  readonly name = 'task_plan';
  readonly hostTools: readonly HostTool[];
  readonly #config: PlanConfig;
  readonly #context: TaskPlanContext | undefined;
  #run: RunStart | undefined;
  #state: TaskPlanState;
  /** A plan-only run's end, once drafted: its `result` carries the plan. */
  #planned: PlannedResult | undefined;

  constructor(config: PlanConfig, context?: TaskPlanContext) {
    const runId = context?.runId;
    this.#config = config;
    this.#context = context;
    this.hostTools = [updateTaskPlanTool(config.mode, (draft, emit) => this.#update(draft, emit))];
    this.#state = {
      planId: `plan_${runId?.replace(/^run_/, '') ?? randomBytes(10).toString('hex')}`,
      plan: config.seed ? newPlan(config.seed, 'seeded').plan : null,
      started: false,
      rejections: 0,
    };
  }

  start(run: RunStart): void {
    this.#run = run;
  }

  beforeTurn({ emit }: TurnContext): TurnAdjustments | Promise<TurnAdjustments> {
    if (this.#config.planOnly) {
      return this.#planOnly(emit).then((planned) => {
        this.#planned = planned;
        return { finishWith: planned.text };
      });
    }
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

  terminalFields(): TerminalFieldsContribution {
    return this.#planned ? { result: { plan: this.#planned.plan } } : {};
  }

  snapshot(): TaskPlanState {
    return structuredClone(this.#state);
  }

  restore(state: unknown): void {
    if (isTaskPlanState(state)) this.#state = structuredClone(state);
  }

  /**
   * A plan-only run's plan, announced before the run ends with it: the seed, else the planner's
   * draft (the client's brief when the planner gives none). The planner's tokens are no part of
   * the run's usage: they are metered apart, under the `task_planning` usage surface (logged until
   * a metering store exists). A planner that fails ends the run with its failure (a provider
   * error's class); a reply that is no plan ends it as `unknown`.
   */
  async #planOnly(emit: EmitEvent): Promise<PlannedResult> {
    const seeded = this.#state.plan;
    if (seeded) {
      this.#state.started = true;
      this.#emit(emit, { plan: seeded, transitions: [{ kind: 'seeded', stepId: null }] }, 'seed');
      return plannedResult(seeded);
    }
    const context = this.#context;
    const conversation = this.#run?.conversation;
    if (!context || !this.#run || !conversation) {
      throw new ControlFailure('unknown', 'a plan-only run without steps has no planner to draft its plan');
    }
    const { model } = this.#run;
    const { plan: drafted, usage } = await context.planner.plan(
      { model, instructions: conversation.instructions, input: conversation.input },
      context.signal,
    );
    context.logger.info(
      { usageSurface: 'task_planning', model: model.id, tokens: usage },
      'plan-only run: planner usage',
    );
    if (!drafted) throw new ControlFailure('unknown', 'the planner’s reply was not a plan');
    const brief = drafted.brief === '' ? this.#config.brief : drafted.brief;
    const revision = newPlan(
      {
        ...(brief !== undefined && { brief }),
        steps: drafted.steps.map((title) => ({ title, status: 'pending' })),
      },
      'created',
    );
    this.#state = { ...this.#state, plan: revision.plan, started: true };
    this.#emit(emit, revision, 'planner');
    return plannedResult(revision.plan);
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
