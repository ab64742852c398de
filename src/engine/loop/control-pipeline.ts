import type {
  ContinueWith,
  FinalAnswer,
  HostTool,
  InterceptedResult,
  ReasoningProgress,
  RoundSummary,
  RunControl,
  ToolCallContext,
  TurnAdjustments,
  TurnContext,
} from './run-control.ts';
import type { ResolvedModel } from '../../domain/model.ts';
import {
  withContributions,
  type TerminalFields,
  type TerminalFieldsContribution,
} from '../../domain/terminal-fields.ts';
import type { SchemaValidator } from '../ports.ts';
import type { RefusalAnswer, RefusedCall, RunStart } from './run-start.ts';

/** Controls' states by control name, as stored with a checkpoint. */
export type ControlStates = Record<string, unknown>;

/**
 * The run's controls, asked in order at each decision point of the turn loop.
 * Turn adjustments combine (messages in control order; tools disabled if any
 * control disables them; the first forced tool, response format and final
 * reply win); the first control to intercept a call,
 * reject a final answer or answer a refused call decides; any control may
 * abort a turn on reasoning progress.
 */
export class ControlPipeline {
  readonly #controls: readonly RunControl[];
  readonly #hostTools = new Map<string, HostTool>();
  readonly #reasoningWatchers: readonly RunControl[];

  constructor(controls: readonly RunControl[]) {
    this.#controls = controls;
    for (const control of controls) {
      for (const tool of control.hostTools ?? []) this.#hostTools.set(tool.name, tool);
    }
    this.#reasoningWatchers = controls.filter((control) => control.onReasoning);
  }

  /** Whether any control watches reasoning progress (no per-delta work otherwise). */
  get watchesReasoning(): boolean {
    return this.#reasoningWatchers.length > 0;
  }

  hostTool(name: string): HostTool | undefined {
    return this.#hostTools.get(name);
  }

  /**
   * Tells the controls what the run's execution starts with: its model, every tool it may offer and
   * the conversation it starts from.
   */
  start(
    model: ResolvedModel,
    validator: SchemaValidator,
    declaredTools: readonly string[],
    conversation?: RunStart['conversation'],
  ): void {
    const run: RunStart = {
      model,
      validator,
      tools: [...declaredTools, ...this.#hostTools.keys()],
      ...(conversation && { conversation }),
    };
    for (const control of this.#controls) control.start?.(run);
  }

  async beforeTurn(context: TurnContext): Promise<TurnAdjustments> {
    const merged: TurnAdjustments = {};
    for (const control of this.#controls) {
      const adjustments = await control.beforeTurn?.(context);
      if (!adjustments) continue;
      if (adjustments.messages?.length)
        merged.messages = [...(merged.messages ?? []), ...adjustments.messages];
      if (adjustments.disableTools) merged.disableTools = true;
      if (adjustments.forceTool !== undefined) merged.forceTool ??= adjustments.forceTool;
      if (adjustments.offerHostTools?.length) {
        merged.offerHostTools = [
          ...new Set([...(merged.offerHostTools ?? []), ...adjustments.offerHostTools]),
        ];
      }
      if (adjustments.responseFormat) merged.responseFormat ??= adjustments.responseFormat;
      if (adjustments.finishWith !== undefined) merged.finishWith ??= adjustments.finishWith;
    }
    return merged;
  }

  beforeToolCall(context: ToolCallContext): InterceptedResult | undefined {
    for (const control of this.#controls) {
      const intercepted = control.beforeToolCall?.(context);
      if (intercepted) return intercepted;
    }
    return undefined;
  }

  /** `abort` as soon as one control says so (a control may decide later, after a review). */
  onReasoning(progress: ReasoningProgress): 'continue' | 'abort' | Promise<'continue' | 'abort'> {
    const pending: Promise<'continue' | 'abort'>[] = [];
    for (const control of this.#reasoningWatchers) {
      const verdict = control.onReasoning?.(progress);
      if (verdict === 'abort') return 'abort';
      if (verdict instanceof Promise) pending.push(verdict);
    }
    if (pending.length === 0) return 'continue';
    return new Promise((resolve) => {
      let open = pending.length;
      const settled = (value: 'continue' | 'abort') => {
        if (value === 'abort') resolve('abort');
        else if (--open === 0) resolve('continue');
      };
      // A review that fails has no verdict: it counts as continue, and does not mask another's abort.
      for (const verdict of pending) verdict.then(settled, () => settled('continue'));
    });
  }

  async afterRound(round: RoundSummary): Promise<void> {
    for (const control of this.#controls) await control.afterRound?.(round);
  }

  async beforeFinish(final: FinalAnswer): Promise<'accept' | ContinueWith> {
    for (const control of this.#controls) {
      const verdict = await control.beforeFinish?.(final);
      if (verdict && verdict !== 'accept') return verdict;
    }
    return 'accept';
  }

  /** The first control's answer to a call the provider refused; none: the refusal stands. */
  onCallRefused(refused: RefusedCall): RefusalAnswer | undefined {
    for (const control of this.#controls) {
      const answer = control.onCallRefused?.(refused);
      if (answer) return answer;
    }
    return undefined;
  }

  /** The terminal fields: `base`, with what each control reports over it in control order. */
  terminalFields(base: TerminalFields): TerminalFields {
    const contributions: TerminalFieldsContribution[] = [];
    for (const control of this.#controls) {
      const contribution = control.terminalFields?.();
      if (contribution) contributions.push(contribution);
    }
    return withContributions(base, contributions);
  }

  snapshot(): ControlStates {
    const states: ControlStates = {};
    for (const control of this.#controls) {
      const state = control.snapshot?.();
      if (state !== undefined) states[control.name] = state;
    }
    return states;
  }

  restore(states: ControlStates): void {
    for (const control of this.#controls) {
      if (control.name in states) control.restore?.(states[control.name]);
    }
  }
}
