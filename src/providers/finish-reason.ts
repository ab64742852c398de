/** Canonical stop reasons of the spec (`assistant_message.finishReason`); others pass through lowercased. */
export type CanonicalFinishReason =
  'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'malformed_function_call' | (string & {});

/** The AI SDK's unified reasons that have a canonical spelling of their own. */
const BY_UNIFIED: Readonly<Record<string, CanonicalFinishReason>> = {
  stop: 'end_turn',
  'tool-calls': 'tool_use',
  length: 'max_tokens',
  'content-filter': 'refusal',
};

/**
 * Raw reasons more specific than their unified reason (Gemini reports MALFORMED_FUNCTION_CALL as
 * unified `error`), so they win over the unified mapping.
 */
const SPECIFIC_RAW = new Set(['malformed_function_call']);

/**
 * Maps the AI SDK's `finishReason` (unified) and `rawFinishReason` (the provider's own) to the
 * spec's canonical lowercase form: unified first, because the raw value can be less precise
 * (Gemini says STOP for a turn with tool calls), then the lowercased raw reason, else null.
 */
export function canonicalFinishReason(
  finishReason: string,
  rawFinishReason: string | undefined,
): CanonicalFinishReason | null {
  const raw = rawFinishReason?.trim().toLowerCase();
  if (raw !== undefined && SPECIFIC_RAW.has(raw)) return raw;
  const unified = BY_UNIFIED[finishReason];
  if (unified !== undefined) return unified;
  return raw === undefined || raw === '' ? null : raw;
}
