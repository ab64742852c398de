import type { TokenUsage } from '../../domain/usage.ts';
import type { ModelCall } from '../ports.ts';

/** The usual rule of thumb for English text and JSON: about 4 characters a token. */
const CHARS_PER_TOKEN = 4;

const tokensOf = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

/**
 * What a turn cut mid-stream by a control spent. Providers report usage when a stream ends, so a
 * stream cut short reports none; yet its prompt was read and its thoughts generated (and billed), and
 * the spec counts them. Estimated from characters: the request's prompt, and what streamed back.
 */
export function estimatedCutTurnUsage(
  request: ModelCall,
  streamed: { textChars: number; thinkingChars: number },
): TokenUsage {
  const promptChars =
    request.instructions.length +
    JSON.stringify(request.messages).length +
    (request.tools ? JSON.stringify(request.tools).length : 0);
  const reasoningTokens = tokensOf(streamed.thinkingChars);
  return {
    inputTokens: tokensOf(promptChars),
    cachedTokens: 0,
    reasoningTokens,
    outputTokens: reasoningTokens + tokensOf(streamed.textChars),
  };
}
