import type { ModelCall, ProviderFailure } from '../../ports.ts';
import type { SyntheticToolName } from './enforcement-path.ts';

/**
 * A refusal that names the schema. Providers word it differently (OpenAI "Invalid schema for
 * response_format", Anthropic "tools.0.custom.input_schema: …", Gemini "…generation_config.
 * response_schema…"), and each names the schema, the response format or the tool; any other 400
 * (a bad attachment, say) is not the schema's fault and stands as `invalid_request`.
 */
const NAMES_THE_SCHEMA = /schema|response[_ ]?format|structured[_ ]output|final_report|set_model_response/i;

export function isSchemaRejection(failure: ProviderFailure): boolean {
  return (
    failure.errorClass === 'invalid_request' &&
    (NAMES_THE_SCHEMA.test(failure.message) || NAMES_THE_SCHEMA.test(failure.apiCode ?? ''))
  );
}

/** Whether the call carried the run's schema: as its response format, or as the synthetic tool. */
export function carriesSchema(call: ModelCall, tool: SyntheticToolName | undefined): boolean {
  if (tool === undefined) return call.responseFormat !== undefined;
  return call.tools?.some((definition) => definition.name === tool) ?? false;
}

/**
 * The same call without the schema: no response format, no synthetic tool. A turn that forced the
 * synthetic tool was a tools-disabled finishing turn, so it stays one (tool choice `none`).
 */
export function withoutSchema(call: ModelCall, tool: SyntheticToolName | undefined): ModelCall {
  const { responseFormat: _format, tools, toolChoice, ...rest } = call;
  const kept = tools?.filter((definition) => definition.name !== tool) ?? [];
  if (kept.length === 0) return rest;
  const forced = typeof toolChoice === 'object' && toolChoice.toolName === tool;
  return { ...rest, tools: kept, toolChoice: forced ? 'none' : (toolChoice ?? 'auto') };
}
