/** The model catalog answer (`GET {ws}/models`). */
import { z } from 'zod';
import type { CatalogEntry } from '../../../domain/model.ts';
import type { Admits } from './schema-agreement.ts';

export const pricingSchema = z
  .object({ inputPer1MUsd: z.number(), outputPer1MUsd: z.number(), cacheReadPer1MUsd: z.number() })
  .meta({ id: 'Pricing', description: 'USD per million tokens.' });

export const modelCatalogEntrySchema = z
  .object({
    id: z.string().describe('`<provider>/<vendorModelId>`: the value to pass back as modelId.'),
    label: z.string(),
    provider: z.string(),
    vendorModelId: z.string(),
    source: z.enum(['platform_offering', 'workspace_provider']),
    contextWindowTokens: z.number().int(),
    pricing: pricingSchema.nullable(),
  })
  .meta({ id: 'ModelCatalogEntry' });

export const modelListSchema = z
  .object({
    models: z
      .array(modelCatalogEntrySchema)
      .describe("The workspace's own models first, then platform offerings."),
    defaultModelId: z
      .string()
      .nullable()
      .describe('The model used when modelId is omitted; null when the catalog is empty.'),
  })
  .meta({ id: 'ModelList' });

export type _ModelsAgreeWithDomain = Admits<z.output<typeof modelCatalogEntrySchema>, CatalogEntry>;
