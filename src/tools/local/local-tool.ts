import type { LocalToolRef } from '../../domain/tool-ref.ts';
import type { RunTool } from '../../engine/ports.ts';
import { objectInputSchema, objectRootSchema } from '../object-schema.ts';

export const LONG_RUNNING_HINT =
  'This is a long-running operation: if it already returned an intermediate or pending status, do not call it again.';

/**
 * `local`: the client's own function. A non-object `parameters` root becomes
 * the empty object schema; a non-object `outputSchema` is dropped. Providers
 * here take no per-tool response schema, so a present `outputSchema` becomes a
 * description hint and results are validated host-side.
 */
export function localTool(ref: LocalToolRef): RunTool {
  const outputSchema = objectRootSchema(ref.outputSchema);
  const hints = [
    ref.longRunning ? LONG_RUNNING_HINT : undefined,
    outputSchema ? `It returns JSON matching this schema: ${JSON.stringify(outputSchema)}` : undefined,
  ].filter((hint): hint is string => hint !== undefined);
  return {
    kind: 'local',
    name: ref.name,
    description: [ref.description ?? '', ...hints].filter((part) => part !== '').join('\n\n'),
    inputSchema: objectInputSchema(ref.parameters),
    ...(outputSchema && { outputSchema }),
    readOnly: ref.readOnly ?? false,
    retain: ref.retain ?? false,
    callExtras: {},
  };
}
