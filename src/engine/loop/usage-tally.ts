import type { AssistantMessageData } from '../../domain/run-events.ts';
import { addUsage, zeroUsage, type ModelInfo, type TokenUsage } from '../../domain/usage.ts';
import type { RunTally } from './loop-outcome.ts';

/** What a run has spent so far, as kept across a takeover. */
export interface TallyState {
  tokens: TokenUsage;
  turns: number;
  lastText: string | null;
}

export const EMPTY_TALLY: TallyState = { tokens: zeroUsage(), turns: 0, lastText: null };

/** A run's usage over its model invocations, and what its last turn said. */
export class UsageTally {
  readonly #model: ModelInfo;
  #tokens: TokenUsage;
  #turns: number;
  #lastText: string | null;
  #lastFinishReason: string | null = null;

  constructor(model: ModelInfo, start: TallyState) {
    this.#model = model;
    this.#tokens = start.tokens;
    this.#turns = start.turns;
    this.#lastText = start.lastText;
  }

  /** A model invocation that completed: its usage counts and its text is the run's latest. */
  countCompleted(usage: TokenUsage, text: string): void {
    this.#turns += 1;
    this.#tokens = addUsage(this.#tokens, usage);
    this.#lastText = text;
  }

  /** An invocation that failed or was abandoned still counts in `turns`. */
  countFailed(): void {
    this.#turns += 1;
  }

  /** An invocation a control cut mid-stream: it counts in `turns`, and what it spent (estimated) in `tokens`. */
  countCut(usage: TokenUsage): void {
    this.#turns += 1;
    this.#tokens = addUsage(this.#tokens, usage);
  }

  /** Tokens a control spent on its own model calls (a judge reviewing the run): `tokens` only, not `turns`. */
  countControlUsage(usage: TokenUsage): void {
    this.#tokens = addUsage(this.#tokens, usage);
  }

  /** A turn that broke off: the text it streamed is the run's latest. */
  noteText(text: string): void {
    this.#lastText = text;
  }

  /** An `error` event's finishReason mirrors the last assistant_message. */
  noteAssistantMessage(data: AssistantMessageData): void {
    this.#lastFinishReason = data.finishReason;
  }

  get state(): TallyState {
    return { tokens: this.#tokens, turns: this.#turns, lastText: this.#lastText };
  }

  get tally(): RunTally {
    return {
      usage: { tokens: this.#tokens, turns: this.#turns, model: this.#model },
      lastText: this.#lastText,
      lastFinishReason: this.#lastFinishReason,
    };
  }
}
