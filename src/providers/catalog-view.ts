import {
  catalogSlug,
  DEFAULT_CONTEXT_WINDOW_TOKENS,
  type CatalogEntry,
  type ProviderApi,
} from '../domain/model.ts';

/** One model reachable through one stored or builtin row, with how to call it. */
export interface ModelConnection {
  entry: CatalogEntry;
  api: ProviderApi;
  baseUrl: string | null;
  connectionRef: string;
  /** Plain API key, decrypted only when a run actually needs it. */
  apiKey: () => string | null;
}

export interface ProviderConnections {
  id: string;
  provider: string;
  api: ProviderApi;
  baseUrl: string | null;
  defaultModel: string;
  isDefault: boolean;
  apiKey: () => string | null;
  models: ModelConnection[];
}

export interface PlatformConnection extends ModelConnection {
  offeringId: string;
  isDefault: boolean;
}

/** What one workspace can see: its own providers and the platform offerings they do not shadow. */
export interface CatalogView {
  providers: ProviderConnections[];
  platform: PlatformConnection[];
}

/** Catalog entries in display order: the workspace's own models first, then platform offerings. */
export function visibleConnections(view: CatalogView): ModelConnection[] {
  const own = view.providers.flatMap((provider) => provider.models);
  const ownIds = new Set(own.map((connection) => connection.entry.id));
  // A workspace connection for the same provider and vendor model shadows the platform offering,
  // so every catalog id names exactly one connection.
  return [...own, ...view.platform.filter((connection) => !ownIds.has(connection.entry.id))];
}

/**
 * The model used when `modelId` is omitted: the workspace default provider's
 * default model, else the platform default offering, else the first offering;
 * an offering shadowed by a workspace model is reached through that model, the
 * connection its catalog id names.
 */
export function defaultConnection(view: CatalogView): ModelConnection | undefined {
  const provider = view.providers.find((candidate) => candidate.isDefault);
  if (provider) return modelOfProvider(provider, provider.defaultModel);
  const offering = view.platform.find((candidate) => candidate.isDefault) ?? view.platform[0];
  if (!offering) return undefined;
  const shadowing = view.providers
    .flatMap((candidate) => candidate.models)
    .find((connection) => connection.entry.id === offering.entry.id);
  return shadowing ?? offering;
}

/** The provider's listed model, or (for a vendor override) a connection to an unlisted model on the same key. */
export function modelOfProvider(provider: ProviderConnections, vendorModelId: string): ModelConnection {
  const listed = provider.models.find((model) => model.entry.vendorModelId === vendorModelId);
  if (listed) return listed;
  return {
    entry: {
      id: catalogSlug(provider.provider, vendorModelId),
      label: vendorModelId,
      provider: provider.provider,
      vendorModelId,
      source: 'workspace_provider',
      contextWindowTokens: DEFAULT_CONTEXT_WINDOW_TOKENS,
      pricing: null,
    },
    api: provider.api,
    baseUrl: provider.baseUrl,
    connectionRef: `provider:${provider.id}`,
    apiKey: provider.apiKey,
  };
}
