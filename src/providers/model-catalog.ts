import { catalogSlug, type CatalogEntry, type ResolvedModel } from '../domain/model.ts';
import type { Offering, WorkspaceProvider } from '../domain/offering.ts';
import type {
  ModelResolver,
  OfferingSource,
  SecretOpener,
  WorkspaceProviderSource,
} from '../engine/ports.ts';
import type { BuiltinOffering } from './builtin-offerings.ts';
import {
  defaultConnection,
  visibleConnections,
  type CatalogView,
  type ModelConnection,
  type PlatformConnection,
  type ProviderConnections,
} from './catalog-view.ts';
import { resolveModelId } from './model-resolver.ts';
import { hasReasoningControl } from './reasoning.ts';

export interface ModelCatalogDeps {
  offerings: OfferingSource;
  workspaceProviders: WorkspaceProviderSource;
  builtin: readonly BuiltinOffering[];
  secretBox: SecretOpener;
}

/** The models a workspace can use (`GET {ws}/models`) and the resolution of `modelId` values. */
/**
 * How long one workspace's catalog is reused. Catalog edits through this process's admin API take
 * effect at once (they invalidate); edits through another replica within this time.
 */
const VIEW_TTL_MS = 2000;

export class ModelCatalog implements ModelResolver {
  readonly #deps: ModelCatalogDeps;
  readonly #views = new Map<string, { view: Promise<CatalogView>; expires: number }>();
  constructor(deps: ModelCatalogDeps) {
    this.#deps = deps;
  }

  /** Forget cached views (after an offering or provider was added or removed). */
  invalidate(): void {
    this.#views.clear();
  }

  async list(workspaceId: string): Promise<{ models: CatalogEntry[]; defaultModelId: string | null }> {
    const view = await this.view(workspaceId);
    return {
      models: visibleConnections(view).map((connection) => connection.entry),
      defaultModelId: defaultConnection(view)?.entry.id ?? null,
    };
  }

  async resolve(workspaceId: string, modelId: string | undefined): Promise<ResolvedModel> {
    const connection = resolveModelId(modelId, await this.view(workspaceId));
    return {
      ...connection.entry,
      api: connection.api,
      baseUrl: connection.baseUrl,
      apiKey: connection.apiKey(),
      connectionRef: connection.connectionRef,
      reasoningControl: hasReasoningControl(connection.api, connection.entry.vendorModelId),
    };
  }

  view(workspaceId: string): Promise<CatalogView> {
    const now = Date.now();
    const cached = this.#views.get(workspaceId);
    if (cached && cached.expires > now) return cached.view;
    const view = this.#load(workspaceId);
    if (this.#views.size >= 10_000) this.#views.clear();
    this.#views.set(workspaceId, { view, expires: now + VIEW_TTL_MS });
    view.catch(() => this.#views.delete(workspaceId));
    return view;
  }

  async #load(workspaceId: string): Promise<CatalogView> {
    const [stored, providers] = await Promise.all([
      this.#deps.offerings.list(),
      this.#deps.workspaceProviders.listByWorkspace(workspaceId),
    ]);
    const storedDefault = stored.some((offering) => offering.isDefault);
    const platform = [
      ...stored.map((offering) =>
        this.#platformConnection(offering, () => this.#open(offering.apiKeySealed)),
      ),
      // A default chosen by the operator in the admin API outranks the builtin one.
      ...this.#deps.builtin.map((offering) => ({
        ...this.#platformConnection(offering, () => offering.apiKey),
        isDefault: offering.isDefault && !storedDefault,
      })),
    ];
    return { providers: providers.map((provider) => this.#providerConnections(provider)), platform };
  }

  #platformConnection(offering: Offering, apiKey: () => string | null): PlatformConnection {
    return {
      entry: {
        id: catalogSlug(offering.provider, offering.vendorModelId),
        label: offering.label,
        provider: offering.provider,
        vendorModelId: offering.vendorModelId,
        source: 'platform_offering',
        contextWindowTokens: offering.contextWindowTokens,
        pricing: offering.pricing,
      },
      api: offering.api,
      baseUrl: offering.baseUrl,
      connectionRef: `platform:${offering.id}`,
      apiKey,
      offeringId: offering.id,
      isDefault: offering.isDefault,
    };
  }

  #providerConnections(provider: WorkspaceProvider): ProviderConnections {
    const apiKey = () => this.#open(provider.apiKeySealed);
    const models: ModelConnection[] = provider.models.map((model) => ({
      entry: {
        id: catalogSlug(provider.provider, model.vendorModelId),
        label: model.label,
        provider: provider.provider,
        vendorModelId: model.vendorModelId,
        source: 'workspace_provider',
        contextWindowTokens: model.contextWindowTokens,
        pricing: model.pricing,
      },
      api: provider.api,
      baseUrl: provider.baseUrl,
      connectionRef: `provider:${provider.id}`,
      apiKey,
    }));
    return {
      id: provider.id,
      provider: provider.provider,
      api: provider.api,
      baseUrl: provider.baseUrl,
      defaultModel: provider.defaultModel,
      isDefault: provider.isDefault,
      apiKey,
      models,
    };
  }

  #open(sealed: string | null): string | null {
    return sealed === null ? null : this.#deps.secretBox.open(sealed);
  }
}
