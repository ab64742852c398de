import type { JSONValue } from 'ai';
import { assertNever } from '../domain/assert-never.ts';
import type { ProviderApi } from '../domain/model.ts';
import { reasoningEffortLabel } from '../domain/reasoning-level.ts';

/** The AI SDK's portable `reasoning` call setting (the subset we use). */
export type SdkReasoning = 'none' | 'low' | 'medium' | 'high';

export interface ReasoningCallSettings {
  /** Pass as the model call's `providerOptions` (merge with any other provider options). */
  providerOptions?: Record<string, Record<string, JSONValue>>;
  /**
   * Pass as the model call's `reasoning`. The SDK resolves it against its per-model tables
   * (which efforts a model accepts, whether thinking can be disabled, budgets or levels), and
   * explicit provider options win where both speak.
   */
  reasoning?: SdkReasoning;
  /** Whether the provider will stream thoughts, i.e. whether `thinking_delta` events may be emitted. */
  exposesThinking: boolean;
}

/** Anthropic `budget_tokens` at level 1 and 100. The API minimum is 1024. */
const ANTHROPIC_MIN_BUDGET = 1024;
/**
 * Kept below 32,000, the max output of Claude Opus 4 / 4.1: the SDK sends
 * `max_tokens = (maxOutputTokens ?? model max) + budget` and then clamps to the model's max, and the
 * API rejects `max_tokens <= budget_tokens`.
 */
const ANTHROPIC_MAX_BUDGET = 24_576;

/** Anthropic thinking budget for a level in 1-100, linear between the min and max budgets. */
export function anthropicThinkingBudget(level: number): number {
  const clamped = Math.min(100, Math.max(1, level));
  return Math.round(
    ANTHROPIC_MIN_BUDGET + ((clamped - 1) * (ANTHROPIC_MAX_BUDGET - ANTHROPIC_MIN_BUDGET)) / 99,
  );
}

/**
 * Whether a Gemini model has a thinking control: 2.5 and later do (and think by default), earlier
 * Gemini and Gemma models reject any `thinkingConfig`; other names are not known.
 */
export function geminiThinkingControl(vendorModelId: string): 'yes' | 'no' | 'unknown' {
  if (/(^|\/)gemma-/i.test(vendorModelId)) return 'no';
  const version = /(?:^|\/)gemini-(\d+)(?:\.(\d+))?/i.exec(vendorModelId);
  if (!version) return 'unknown';
  const major = Number(version[1]);
  const minor = Number(version[2] ?? 0);
  return major > 2 || (major === 2 && minor >= 5) ? 'yes' : 'no';
}

/** Whether the model has a reasoning control at all (Gemini before 2.5 and Gemma have none). */
export function hasReasoningControl(api: ProviderApi, vendorModelId: string): boolean {
  return api !== 'google-generative-ai' || geminiThinkingControl(vendorModelId) !== 'no';
}

/**
 * Maps a reasoning level onto each provider's own control. Level 0 disables thinking with the
 * lowest setting the model accepts. `null` (no level anywhere in the spec) is thinking off
 * too, but sent only where it cannot break a model without thinking: OpenAI
 * Responses (the SDK knows which models reason), Gemini 2.5 and later (which think by default);
 * nothing to Anthropic (thinking is off unless asked for) nor to OpenAI-compatible servers, which
 * differ in whether a non-reasoning model accepts `reasoning_effort` at all.
 */
export function reasoningCallSettings(
  api: ProviderApi,
  level: number | null,
  vendorModelId: string,
): ReasoningCallSettings {
  if (level === null) {
    const sendOff =
      api === 'openai-responses' ||
      api === 'mock' ||
      (api === 'google-generative-ai' && geminiThinkingControl(vendorModelId) === 'yes');
    return sendOff ? reasoningCallSettings(api, 0, vendorModelId) : { exposesThinking: false };
  }
  const label = reasoningEffortLabel(level);
  const thinking = label !== 'off';
  const reasoning: SdkReasoning = thinking ? label : 'none';
  const base = { reasoning, exposesThinking: thinking };

  switch (api) {
    case 'openai-responses':
      // Which of none/minimal/low a model takes at level 0 depends on the model (gpt-5: minimal,
      // gpt-5.1+: none, gpt-6: low): leave it to `reasoning: 'none'`, which the SDK maps per
      // model. Above 0, low/medium/high are accepted by every OpenAI reasoning model. At 0 no
      // summaries are asked for (the SDK would default them to `detailed` on minimal-effort models).
      if (!thinking) return { ...base, providerOptions: { openai: { reasoningSummary: null } } };
      return { ...base, providerOptions: { openai: { reasoningEffort: label, reasoningSummary: 'auto' } } };
    case 'openai-chat':
      // The compatible provider has no model tables; `none` is what OpenAI, OpenRouter and vLLM take.
      return {
        ...base,
        providerOptions: { openaiCompatible: { reasoningEffort: thinking ? label : 'none' } },
      };
    case 'anthropic-messages':
      // For models without budget thinking or that cannot disable it, the SDK rewrites these
      // (adaptive thinking, `between_tools`) and maps `reasoning` onto `effort` where supported.
      return {
        ...base,
        providerOptions: {
          anthropic: {
            thinking: thinking
              ? { type: 'enabled', budgetTokens: anthropicThinkingBudget(level) }
              : { type: 'disabled' },
          },
        },
      };
    case 'google-generative-ai':
      // Models before 2.5 have no thinking control: the level is ignored, as the spec says.
      if (geminiThinkingControl(vendorModelId) === 'no') return { exposesThinking: false };
      // Budget vs level and the minimum budget differ per model (Gemini 3 takes thinkingLevel;
      // 2.5 Pro rejects a zero budget): an explicit thinkingBudget here would bypass the SDK's
      // per-model mapping of `reasoning`, so only ask for the thoughts to be streamed.
      return { ...base, providerOptions: { google: { thinkingConfig: { includeThoughts: thinking } } } };
    case 'mock':
      return { ...base, providerOptions: { mock: { thinking } } };
    default:
      return assertNever(api);
  }
}
