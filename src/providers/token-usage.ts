import type { LanguageModelUsage } from 'ai';
import type { TokenUsage } from '../domain/usage.ts';

/** The spec's `tokens` from the SDK's usage: every bucket a number, 0 when the provider reports nothing. */
export function usageOf(usage: LanguageModelUsage | undefined): TokenUsage {
  return {
    inputTokens: usage?.inputTokens ?? 0,
    cachedTokens: usage?.inputTokenDetails?.cacheReadTokens ?? 0,
    reasoningTokens: usage?.outputTokenDetails?.reasoningTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
  };
}
