/** Platform provider keys from the environment (`OPENAI_API_KEY`, …). */
export interface ProviderKeys {
  openai?: string;
  anthropic?: string;
  google?: string;
}
import type { ProviderApi } from '../domain/model.ts';
import type { Offering } from '../domain/offering.ts';

interface BuiltinModel {
  vendorModelId: string;
  label: string;
  contextWindowTokens: number;
}

/** Models offered to every workspace when the operator sets a provider key in the environment. */
const ENV_PROVIDER_MODELS: ReadonlyArray<{
  provider: 'openai' | 'anthropic' | 'google';
  api: ProviderApi;
  models: BuiltinModel[];
}> = [
  {
    provider: 'openai',
    api: 'openai-responses',
    models: [
      { vendorModelId: 'gpt-5-mini', label: 'GPT-5 mini', contextWindowTokens: 400_000 },
      { vendorModelId: 'gpt-5.1', label: 'GPT-5.1', contextWindowTokens: 400_000 },
    ],
  },
  {
    provider: 'anthropic',
    api: 'anthropic-messages',
    models: [
      { vendorModelId: 'claude-sonnet-4-5', label: 'Claude Sonnet 4.5', contextWindowTokens: 200_000 },
      { vendorModelId: 'claude-haiku-4-5', label: 'Claude Haiku 4.5', contextWindowTokens: 200_000 },
    ],
  },
  {
    provider: 'google',
    api: 'google-generative-ai',
    models: [
      { vendorModelId: 'gemini-2.5-flash', label: 'Gemini 2.5 Flash', contextWindowTokens: 1_048_576 },
      { vendorModelId: 'gemini-2.5-pro', label: 'Gemini 2.5 Pro', contextWindowTokens: 1_048_576 },
    ],
  },
];

export const MOCK_OFFERING_ID = 'builtin-mock-echo';

/** A builtin offering: configured by the environment rather than stored, with its key in memory only. */
export interface BuiltinOffering extends Offering {
  origin: 'builtin';
  apiKey: string | null;
}

/**
 * Offerings that come from configuration rather than the database: one per
 * model of each provider whose key is in the environment, and in dev mode
 * with no provider key the offline `mock` provider, as the default model.
 */
export function builtinOfferings(
  config: { providerKeys: ProviderKeys },
  options: { devMock: boolean },
): BuiltinOffering[] {
  const createdAt = new Date(0).toISOString();
  const offerings: BuiltinOffering[] = [];
  for (const { provider, api, models } of ENV_PROVIDER_MODELS) {
    const apiKey = config.providerKeys[provider];
    if (!apiKey) continue;
    for (const model of models) {
      offerings.push({
        id: `builtin-${provider}-${model.vendorModelId.replace(/[^a-z0-9]+/gi, '-')}`,
        provider,
        api,
        baseUrl: null,
        apiKeySealed: null,
        apiKey,
        ...model,
        pricing: null,
        isDefault: offerings.length === 0,
        origin: 'builtin',
        createdAt,
      });
    }
  }
  if (options.devMock && offerings.length === 0) {
    offerings.push({
      id: MOCK_OFFERING_ID,
      provider: 'mock',
      api: 'mock',
      baseUrl: null,
      apiKeySealed: null,
      apiKey: null,
      vendorModelId: 'echo',
      label: 'Mock (offline, deterministic)',
      contextWindowTokens: 128_000,
      pricing: null,
      isDefault: true,
      origin: 'builtin',
      createdAt,
    });
  }
  return offerings;
}
