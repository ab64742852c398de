import type { Pricing, ProviderApi } from './model.ts';

/** A hosted model that every workspace may use. */
export interface Offering {
  id: string;
  provider: string;
  api: ProviderApi;
  baseUrl: string | null;
  /** Sealed (encrypted) API key; never leaves the service. */
  apiKeySealed: string | null;
  vendorModelId: string;
  label: string;
  contextWindowTokens: number;
  pricing: Pricing | null;
  isDefault: boolean;
  /** `builtin` offerings come from configuration (provider keys in the environment, the dev mock) and are not stored. */
  origin: 'stored' | 'builtin';
  createdAt: string;
}

export interface ProviderModel {
  vendorModelId: string;
  label: string;
  contextWindowTokens: number;
  pricing: Pricing | null;
}

/** A workspace's own connection to a provider (bring-your-own key). */
export interface WorkspaceProvider {
  id: string;
  workspaceId: string;
  provider: string;
  api: ProviderApi;
  baseUrl: string | null;
  apiKeySealed: string | null;
  models: ProviderModel[];
  defaultModel: string;
  isDefault: boolean;
  createdAt: string;
}
