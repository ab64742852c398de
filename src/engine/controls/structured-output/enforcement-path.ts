import { assertNever } from '../../../domain/assert-never.ts';
import { FINAL_REPORT, SET_MODEL_RESPONSE } from '../../../domain/host-tools.ts';
import type { ResolvedModel } from '../../../domain/model.ts';

export type SyntheticToolName = typeof FINAL_REPORT | typeof SET_MODEL_RESPONSE;

export const SYNTHETIC_TOOLS: readonly SyntheticToolName[] = [FINAL_REPORT, SET_MODEL_RESPONSE];

/** How a run's `outputSchema` reaches its model. */
export type EnforcementPath =
  | { mechanism: 'native_schema' }
  | { mechanism: 'synthetic_tool'; tool: SyntheticToolName }
  | { mechanism: 'none' };

const NATIVE: EnforcementPath = { mechanism: 'native_schema' };
const NONE: EnforcementPath = { mechanism: 'none' };

/**
 * The enforcement path of a resolved model, by its wire protocol:
 * - OpenAI chat and responses, and the mock, take a JSON-schema response format on every turn,
 *   tool turns included.
 * - Anthropic messages, a tool-call family, answer through `final_report`.
 * - Gemini, see `geminiPath`.
 * `offersTools`: the run offers the model any tool besides the synthetic ones.
 */
export function enforcementPathFor(
  model: Pick<ResolvedModel, 'api' | 'vendorModelId'>,
  offersTools: boolean,
): EnforcementPath {
  switch (model.api) {
    case 'openai-chat':
    case 'openai-responses':
    case 'mock':
      return NATIVE;
    case 'anthropic-messages':
      return { mechanism: 'synthetic_tool', tool: FINAL_REPORT };
    case 'google-generative-ai':
      return geminiPath(model.vendorModelId, offersTools);
    default:
      return assertNever(model.api);
  }
}

/**
 * Gemini 3 and later accept a response schema alongside function tools; earlier generations reject
 * the pair, so a run with tools answers through `set_model_response` and a run without keeps the
 * native schema. A model name without a version is treated as an earlier generation (the safe
 * choice). Gemma models on the same API have no JSON mode: no path. The AI SDK bridges the
 * older-Gemini case on its own with a hidden `json` tool and tool choice `required` on every turn;
 * the schema is not sent alongside tools here, so that bridge never engages and the model keeps
 * calling its tools freely.
 */
function geminiPath(vendorModelId: string, offersTools: boolean): EnforcementPath {
  if (/(?:^|\/)gemma-/i.test(vendorModelId)) return NONE;
  const version = /(?:^|\/)gemini-(\d+)/i.exec(vendorModelId);
  if (version && Number(version[1]) >= 3) return NATIVE;
  return offersTools ? { mechanism: 'synthetic_tool', tool: SET_MODEL_RESPONSE } : NATIVE;
}
