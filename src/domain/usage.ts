/** The spec's `tokens` object: every bucket a non-negative integer, 0 when the provider reports nothing. */
export interface TokenUsage {
  inputTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  outputTokens: number;
}

/** The named reasoning levels, and the effort label reported on `model.reasoningEffort`. */
export type ReasoningEffortLabel = 'off' | 'low' | 'medium' | 'high';

/** `reasoningLevel` as a request or an agent carries it: a label or an integer 0-100. */
export type ReasoningLevelInput = ReasoningEffortLabel | number;

/** `model` on terminal events and snapshots. */
export interface ModelInfo {
  id: string;
  provider: string;
  vendorModelId: string;
  reasoningEffort?: ReasoningEffortLabel;
}

export function zeroUsage(): TokenUsage {
  return { inputTokens: 0, cachedTokens: 0, reasoningTokens: 0, outputTokens: 0 };
}

export function addUsage(total: TokenUsage, turn: TokenUsage): TokenUsage {
  return {
    inputTokens: total.inputTokens + turn.inputTokens,
    cachedTokens: total.cachedTokens + turn.cachedTokens,
    reasoningTokens: total.reasoningTokens + turn.reasoningTokens,
    outputTokens: total.outputTokens + turn.outputTokens,
  };
}
