import type { LanguageModelUsage } from 'ai';
import type { TokenUsage } from '../domain/usage.ts';

export type { TokenUsage };

export function zeroUsage(): TokenUsage {
  return { inputTokens: 0, cachedTokens: 0, reasoningTokens: 0, outputTokens: 0 };
}

export function usageOf(usage: LanguageModelUsage | undefined): TokenUsage {
  return {
    inputTokens: usage?.inputTokens ?? 0,
    cachedTokens: usage?.inputTokenDetails?.cacheReadTokens ?? 0,
    reasoningTokens: usage?.outputTokenDetails?.reasoningTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
  };
}

export function addUsage(total: TokenUsage, turn: TokenUsage): TokenUsage {
  return {
    inputTokens: total.inputTokens + turn.inputTokens,
    cachedTokens: total.cachedTokens + turn.cachedTokens,
    reasoningTokens: total.reasoningTokens + turn.reasoningTokens,
    outputTokens: total.outputTokens + turn.outputTokens,
  };
}
