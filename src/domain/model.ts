export const PROVIDER_APIS = [
  'openai-responses',
  'openai-chat',
  'anthropic-messages',
  'google-generative-ai',
  'mock',
] as const;
export type ProviderApi = (typeof PROVIDER_APIS)[number];

/** Wire protocol of the well-known providers; any other provider id must name its `api`. */
export const DEFAULT_API_BY_PROVIDER: Readonly<Record<string, ProviderApi>> = {
  openai: 'openai-responses',
  anthropic: 'anthropic-messages',
  google: 'google-generative-ai',
  mock: 'mock',
};

export const PROVIDER_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const DEFAULT_CONTEXT_WINDOW_TOKENS = 128_000;

export interface Pricing {
  inputPer1MUsd: number;
  outputPer1MUsd: number;
  cacheReadPer1MUsd: number;
}

export type ModelSource = 'platform_offering' | 'workspace_provider';

/** One entry of `GET {ws}/models`. */
export interface CatalogEntry {
  id: string;
  label: string;
  provider: string;
  vendorModelId: string;
  source: ModelSource;
  contextWindowTokens: number;
  pricing: Pricing | null;
}

/** Everything needed to call a model: the catalog entry plus how to reach it. */
export interface ResolvedModel extends CatalogEntry {
  api: ProviderApi;
  baseUrl: string | null;
  /** Plain API key, or null when the protocol needs none (mock) or none is configured. */
  apiKey: string | null;
  /** `platform:<offeringId>` or `provider:<providerRowId>`: which row serves this model. */
  connectionRef: string;
  /** Whether the model has a reasoning control a `reasoningLevel` maps onto. */
  reasoningControl: boolean;
}

export function catalogSlug(provider: string, vendorModelId: string): string {
  return `${provider}/${vendorModelId}`;
}
