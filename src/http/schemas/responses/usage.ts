/** The usage objects of terminal events and run snapshots (the spec's "Usage objects" section). */
import { z } from 'zod';
import type { StructuredOutputReport as StructuredOutputReportData } from '../../../domain/run-events.ts';
import type { ModelInfo as ModelInfoData, TokenUsage as TokenUsageData } from '../../../domain/usage.ts';
import type { Admits } from './schema-agreement.ts';

const tokenCount = z.number().int().min(0);

export const tokenUsageSchema = z
  .object({
    inputTokens: tokenCount.describe(
      'Total billable input: fresh prompt plus cached-read slice plus cache creation plus tool-prompt tokens, summed over the run.',
    ),
    cachedTokens: tokenCount.describe('The slice of inputTokens that hit a prompt cache (not added on top).'),
    reasoningTokens: tokenCount.describe('Non-visible thinking tokens, already inside outputTokens.'),
    outputTokens: tokenCount.describe('All emitted tokens, visible plus reasoning.'),
  })
  .meta({
    id: 'TokenUsage',
    description: 'Token counts of a run; 0 when a provider does not report a bucket, never null.',
  });

export const reasoningEffortSchema = z.enum(['off', 'low', 'medium', 'high']);

export const modelInfoSchema = z
  .object({
    id: z.string().describe('Catalog id (`<provider>/<vendorModelId>`); empty for legacy fallbacks.'),
    provider: z.string().describe('Lowercase provider id.'),
    vendorModelId: z.string(),
    reasoningEffort: reasoningEffortSchema
      .optional()
      .describe(
        'The resolved effort label; omitted when no level was requested or the model has no such knob.',
      ),
  })
  .meta({ id: 'ModelInfo', description: 'The model a run was resolved to.' });

export const turnsSchema = z
  .number()
  .int()
  .min(0)
  .describe('Model invocations in the run, a failing one included; plan-only runs report 0.');

export const structuredOutputReportSchema = z
  .object({
    schemaRequested: z.boolean(),
    schemaEnforced: z
      .boolean()
      .describe('True only when a native schema was used or the required synthetic tool was captured.'),
    enforcementMechanism: z.enum(['native_schema', 'synthetic_tool', 'none']),
    unconstrainedFallbackOccurred: z
      .boolean()
      .describe('Run-level: stays true once any provider call fell back; always false in strict mode.'),
  })
  .meta({ id: 'StructuredOutputReport', description: 'How an `outputSchema` was enforced.' });

export type _UsageAgreesWithDomain = [
  Admits<z.output<typeof tokenUsageSchema>, TokenUsageData>,
  Admits<z.output<typeof modelInfoSchema>, ModelInfoData>,
  Admits<z.output<typeof structuredOutputReportSchema>, StructuredOutputReportData>,
];
