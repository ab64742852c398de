/** The spec's `tokens` object: every bucket a non-negative integer, 0 when the provider reports nothing. */
export interface TokenUsage {
  inputTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  outputTokens: number;
}

export type ReasoningEffortLabel = 'off' | 'low' | 'medium' | 'high';

/** `model` on terminal events and snapshots. */
export interface ModelInfo {
  id: string;
  provider: string;
  vendorModelId: string;
  reasoningEffort?: ReasoningEffortLabel;
}
