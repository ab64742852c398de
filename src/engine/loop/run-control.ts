import type { ModelMessage, ToolResultPart } from 'ai';
import type { RunEvent } from '../../domain/run-events.ts';
import type { TerminalFieldsContribution } from '../../domain/terminal-fields.ts';
import type { TokenUsage } from '../../domain/usage.ts';
import type { ModelToolDefinition, ResponseFormat, RunTool, ToolCallRequest } from '../ports.ts';
import type { RefusalAnswer, RefusedCall, RunStart } from './run-start.ts';

/** What the model receives as one tool call's result. */
export type ToolOutput = ToolResultPart['output'];

/** Emits an observability event of the run (an announcement or a review of the control). */
export type EmitEvent = (event: RunEvent) => void;

export interface TurnContext {
  /** 0-based tool-turn index of the turn about to start. */
  turn: number;
  emit: EmitEvent;
}

/** How a control shapes the next model turn. */
export interface TurnAdjustments {
  /** Appended to the conversation before the turn, and kept in it (a steering message). */
  messages?: ModelMessage[];
  /** The declared tools are not callable this turn (tool choice `none`). */
  disableTools?: boolean;
  /** The model must call this tool (a host tool of the control, offered by `offerHostTools`). */
  forceTool?: string;
  /** Host tools of the control offered to the model this turn, by name. */
  offerHostTools?: string[];
  responseFormat?: ResponseFormat;
  /**
   * The run ends with this final reply instead of another model turn; what else its `result`
   * carries, the control reports through `terminalFields`.
   */
  finishWith?: string;
}

export interface ToolCallContext {
  turn: number;
  call: ToolCallRequest;
  /** Every call of the turn, in model-emit order (`call` among them): a control may judge the batch. */
  round: readonly ToolCallRequest[];
  /** The declared or host tool the call names (undefined: the model named no such tool). */
  tool: RunTool | HostTool | undefined;
}

/** A call answered without executing it; `event` (observability) is emitted when the round runs. */
export interface InterceptedResult {
  output: ToolOutput;
  event?: RunEvent;
}

export interface RoundSummary {
  turn: number;
  calls: ReadonlyArray<{ call: ToolCallRequest; intercepted: boolean; output: ToolOutput }>;
  emit: EmitEvent;
  /** The run's conversation so far, this round's results included. */
  conversation: readonly ModelMessage[];
  reportUsage: ReportUsage;
}

export interface FinalAnswer {
  turn: number;
  text: string;
  finishReason: string | null;
  /** Whether the turn could call tools (false on a tools-disabled finishing turn). */
  toolsCallable: boolean;
  emit: EmitEvent;
}

/** A premature final answer: the loop goes on with these messages appended. */
export interface ContinueWith {
  continueWith: ModelMessage[];
}

export interface ReasoningProgress {
  turn: number;
  /** Characters of thought in the current reasoning span. */
  chars: number;
  /** Milliseconds since the span's first thought. */
  ms: number;
  emit: EmitEvent;
  /** The conversation the turn was asked with. */
  conversation: readonly ModelMessage[];
  /** The thoughts of the current span so far. */
  thoughts: string;
  reportUsage: ReportUsage;
}

/**
 * Adds tokens a control spent on its own model calls (a judge reviewing the run) to the run's usage
 * (terminal `tokens`, not `turns`).
 */
export type ReportUsage = (usage: TokenUsage) => void;

/** A synthetic tool a control serves itself (never sent to clients, never among the declared tools). */
export interface HostTool extends ModelToolDefinition {
  execute(args: Record<string, unknown>, context: { turn: number; emit: EmitEvent }): ToolOutput;
}

type MaybePromise<T> = T | Promise<T>;

/**
 * One run control (the controls of the spec's Run controls section, in
 * `controls/`) hooked into the turn loop's decision points. The loop
 * names no control; it asks the pipeline at each point.
 */
export interface RunControl {
  readonly name: string;
  /** Host tools this control serves, offered per turn through `offerHostTools`. */
  readonly hostTools?: readonly HostTool[];
  beforeTurn?(turn: TurnContext): MaybePromise<TurnAdjustments | void>;
  /** Called for every call of a round before any executes; a result intercepts the call. */
  beforeToolCall?(call: ToolCallContext): InterceptedResult | void;
  /** Called as thoughts stream; `abort` ends the turn where it is (the loop then starts the next). */
  onReasoning?(progress: ReasoningProgress): MaybePromise<'continue' | 'abort'> | void;
  afterRound?(round: RoundSummary): MaybePromise<void>;
  beforeFinish?(final: FinalAnswer): MaybePromise<'accept' | ContinueWith>;
  /** Called when the run's execution starts, before its first turn (again after a park or takeover). */
  start?(run: RunStart): void;
  /** A model call the provider refused for good: the control may retry it changed, or fail the run. */
  onCallRefused?(refused: RefusedCall): RefusalAnswer | void;
  /** Fields this control reports on the run's terminal `result` or `error`, asked when the run ends. */
  terminalFields?(): TerminalFieldsContribution;
  /** The control's state, kept with the run's checkpoint so a takeover restores it. */
  snapshot?(): unknown;
  restore?(state: unknown): void;
}
