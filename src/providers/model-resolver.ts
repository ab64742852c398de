import { InvalidModelError, type ModelCandidate } from '../domain/errors.ts';
import {
  defaultConnection,
  modelOfProvider,
  visibleConnections,
  type CatalogView,
  type ModelConnection,
} from './catalog-view.ts';

/**
 * Resolves every `modelId` form of the spec against one workspace's catalog:
 * `<provider>/<vendorModelId>` (the vendor part may contain `/`),
 * `platform:<offeringId>`, `provider:<id>`, `provider:<id>:<vendor>`, a bare
 * vendor id (only when exactly one workspace provider can run it), or omitted.
 * Throws `InvalidModelError` (400 invalid_model), with candidates when they help.
 */
export function resolveModelId(modelId: string | undefined, view: CatalogView): ModelConnection {
  if (modelId === undefined) {
    const fallback = defaultConnection(view);
    if (!fallback) throw new InvalidModelError('no modelId was given and the workspace has no default model');
    return fallback;
  }
  if (modelId.startsWith('platform:')) return resolvePlatform(modelId.slice('platform:'.length), view);
  if (modelId.startsWith('provider:')) return resolveProvider(modelId.slice('provider:'.length), view);

  const visible = visibleConnections(view);
  if (modelId.includes('/')) {
    const bySlug = visible.find((connection) => connection.entry.id === modelId);
    if (bySlug) return bySlug;
  }
  return resolveBareVendorId(modelId, view, visible);
}

function resolvePlatform(offeringId: string, view: CatalogView): ModelConnection {
  const offering = view.platform.find((candidate) => candidate.offeringId === offeringId);
  if (!offering) throw new InvalidModelError(`no platform offering with id '${offeringId}'`);
  return offering;
}

function resolveProvider(reference: string, view: CatalogView): ModelConnection {
  const separator = reference.indexOf(':');
  const providerId = separator === -1 ? reference : reference.slice(0, separator);
  const vendorOverride = separator === -1 ? undefined : reference.slice(separator + 1);
  const provider = view.providers.find((candidate) => candidate.id === providerId);
  if (!provider) throw new InvalidModelError(`no workspace provider with id '${providerId}'`);
  if (vendorOverride === '')
    throw new InvalidModelError('provider:<id>:<vendor> needs a vendor model id after the colon');
  if (vendorOverride !== undefined && !isPlainVendorModelId(vendorOverride)) {
    throw new InvalidModelError(
      `'${vendorOverride}' is not a vendor model id (letters, digits and . _ : @ + - in segments separated by /)`,
    );
  }
  return modelOfProvider(provider, vendorOverride ?? provider.defaultModel);
}

/** Vendor model ids as providers spell them (`gpt-5-mini`, `llama3.1:8b`, `accounts/x/models/y`). */
const VENDOR_MODEL_ID = /^[A-Za-z0-9._:@+-]+(?:\/[A-Za-z0-9._:@+-]+)*$/;

/**
 * A client-chosen vendor id goes into the provider request, in some protocols into the URL path
 * (Google's `models/{id}:streamGenerateContent`): it must not be able to name another path on the
 * provider's host (`..` segments, `?`, `#`, `%`) with the connection's key.
 */
function isPlainVendorModelId(vendorModelId: string): boolean {
  return (
    vendorModelId.length <= 200 &&
    VENDOR_MODEL_ID.test(vendorModelId) &&
    !vendorModelId.split('/').some((segment) => segment === '.' || segment === '..')
  );
}

function resolveBareVendorId(
  modelId: string,
  view: CatalogView,
  visible: ModelConnection[],
): ModelConnection {
  const runners = view.providers.flatMap((provider) =>
    provider.models.filter((model) => model.entry.vendorModelId === modelId),
  );
  const [only] = runners;
  if (only && runners.length === 1) return only;
  if (runners.length > 1) {
    throw new InvalidModelError(
      `'${modelId}' is ambiguous: ${runners.length} workspace providers can run it; pass one of the candidate ids`,
      runners.map(toCandidate),
    );
  }
  const similar = visible.filter(
    (connection) => connection.entry.vendorModelId === modelId || connection.entry.id.endsWith(`/${modelId}`),
  );
  throw new InvalidModelError(
    similar.length > 0
      ? `'${modelId}' is not a catalog id, and no workspace provider runs it; pass one of the candidate ids`
      : `unknown model '${modelId}'; GET the workspace's /models for the catalog`,
    similar.length > 0 ? similar.map(toCandidate) : undefined,
  );
}

function toCandidate(connection: ModelConnection): ModelCandidate {
  return { id: connection.entry.id, label: connection.entry.label, source: connection.entry.source };
}
