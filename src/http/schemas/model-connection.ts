import { z } from 'zod';
import {
  DEFAULT_API_BY_PROVIDER,
  PROVIDER_APIS,
  PROVIDER_ID_PATTERN,
  type ProviderApi,
} from '../../domain/model.ts';
import { InvalidRequestError } from '../../domain/errors.ts';
import { httpUrlSchema } from './common.ts';

export const pricingSchema = z.strictObject({
  inputPer1MUsd: z.number().min(0),
  outputPer1MUsd: z.number().min(0),
  cacheReadPer1MUsd: z.number().min(0),
});

export const modelFieldsSchema = {
  vendorModelId: z.string().trim().min(1).max(200),
  label: z.string().trim().min(1).max(200).optional(),
  contextWindowTokens: z.number().int().min(1).max(100_000_000).optional(),
  pricing: pricingSchema.nullable().optional(),
};

/** Fields shared by platform offerings and workspace providers: who serves the model and over which protocol. */
export const connectionFieldsSchema = {
  provider: z
    .string()
    .regex(PROVIDER_ID_PATTERN, 'must be a lowercase provider id such as openai or my-vllm'),
  api: z.enum(PROVIDER_APIS, { error: `must be one of ${PROVIDER_APIS.join(', ')}` }).optional(),
  baseUrl: httpUrlSchema.optional(),
  apiKey: z.string().min(1).max(8192).optional(),
};

/** `api` defaults from well-known providers (openai, anthropic, google, mock) and is required otherwise. */
export function apiFor(provider: string, api: ProviderApi | undefined): ProviderApi {
  const resolved = api ?? DEFAULT_API_BY_PROVIDER[provider];
  if (!resolved) {
    throw new InvalidRequestError(
      `api: required for provider '${provider}' (one of ${PROVIDER_APIS.join(', ')}); it defaults only for openai, anthropic, google and mock`,
    );
  }
  return resolved;
}
