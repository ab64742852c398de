import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidModelError } from '../../src/domain/errors.ts';
import type {
  CatalogView,
  PlatformConnection,
  ProviderConnections,
} from '../../src/providers/catalog-view.ts';
import { visibleConnections } from '../../src/providers/catalog-view.ts';
import { resolveModelId } from '../../src/providers/model-resolver.ts';

function platform(
  provider: string,
  vendorModelId: string,
  offeringId: string,
  isDefault = false,
): PlatformConnection {
  return {
    entry: {
      id: `${provider}/${vendorModelId}`,
      label: vendorModelId,
      provider,
      vendorModelId,
      source: 'platform_offering',
      contextWindowTokens: 1000,
      pricing: null,
    },
    api: 'openai-chat',
    baseUrl: null,
    connectionRef: `platform:${offeringId}`,
    apiKey: () => null,
    offeringId,
    isDefault,
  };
}

function workspaceProvider(
  id: string,
  provider: string,
  models: string[],
  isDefault = false,
): ProviderConnections {
  return {
    id,
    provider,
    api: 'openai-chat',
    baseUrl: 'http://127.0.0.1:9/v1',
    defaultModel: models[0] ?? '',
    isDefault,
    apiKey: () => `key-of-${id}`,
    models: models.map((vendorModelId) => ({
      entry: {
        id: `${provider}/${vendorModelId}`,
        label: vendorModelId,
        provider,
        vendorModelId,
        source: 'workspace_provider',
        contextWindowTokens: 2000,
        pricing: null,
      },
      api: 'openai-chat',
      baseUrl: 'http://127.0.0.1:9/v1',
      connectionRef: `provider:${id}`,
      apiKey: () => `key-of-${id}`,
    })),
  };
}

const view: CatalogView = {
  providers: [
    workspaceProvider('prov_a', 'together', ['meta-llama/Llama-3-70b', 'shared-model']),
    workspaceProvider('prov_b', 'fireworks', ['shared-model', 'qwen-2'], true),
  ],
  platform: [platform('openai', 'gpt-5-mini', 'off_1', true), platform('openai', 'gpt-5.1', 'off_2')],
};

function rejectsWithModelError(
  modelId: string | undefined,
  catalog: CatalogView,
  check?: (error: InvalidModelError) => void,
) {
  assert.throws(
    () => resolveModelId(modelId, catalog),
    (error: unknown) => {
      assert.ok(error instanceof InvalidModelError, `expected InvalidModelError, got ${String(error)}`);
      assert.equal(error.code, 'invalid_model');
      check?.(error);
      return true;
    },
  );
}

describe('modelId resolution', () => {
  it('slug form <provider>/<vendorModelId> resolves, also when the vendor part contains a slash', () => {
    assert.equal(resolveModelId('openai/gpt-5.1', view).connectionRef, 'platform:off_2');
    const llama = resolveModelId('together/meta-llama/Llama-3-70b', view);
    assert.equal(llama.entry.vendorModelId, 'meta-llama/Llama-3-70b');
    assert.equal(llama.entry.provider, 'together');
  });

  it('platform:<offeringId> picks the hosted entry by id; an unknown id is invalid_model', () => {
    assert.equal(resolveModelId('platform:off_1', view).entry.id, 'openai/gpt-5-mini');
    rejectsWithModelError('platform:off_404', view);
  });

  it("provider:<id> is the workspace provider's default model", () => {
    const resolved = resolveModelId('provider:prov_b', view);
    assert.equal(resolved.entry.id, 'fireworks/shared-model');
    assert.equal(resolved.apiKey(), 'key-of-prov_b');
  });

  it('provider:<id>:<vendor> overrides the vendor model, listed or not, on the same connection', () => {
    assert.equal(resolveModelId('provider:prov_b:qwen-2', view).entry.id, 'fireworks/qwen-2');
    const unlisted = resolveModelId('provider:prov_a:some/new-model:v2', view);
    assert.equal(unlisted.entry.vendorModelId, 'some/new-model:v2');
    assert.equal(unlisted.connectionRef, 'provider:prov_a');
    rejectsWithModelError('provider:prov_zzz', view);
    rejectsWithModelError('provider:prov_a:', view);
  });

  it('provider:<id>:<vendor> refuses a vendor part that could name another path on the provider host', () => {
    for (const vendor of [
      '../../internal/admin?x=',
      'a/../../other-path#',
      'a/./b',
      'x%2F..',
      'a b',
      'a//b',
      '/a',
    ]) {
      rejectsWithModelError(`provider:prov_a:${vendor}`, view, (error) =>
        assert.match(error.message, /is not a vendor model id/),
      );
    }
    for (const vendor of [
      'llama3.1:8b',
      'accounts/fireworks/models/llama-v3p1-8b',
      'gpt-4o@2024-08-06',
      'a+b_c.d',
    ]) {
      assert.equal(resolveModelId(`provider:prov_a:${vendor}`, view).entry.vendorModelId, vendor);
    }
  });

  it('a bare vendor id resolves when exactly one workspace provider can run it', () => {
    assert.equal(resolveModelId('qwen-2', view).entry.id, 'fireworks/qwen-2');
    assert.equal(resolveModelId('meta-llama/Llama-3-70b', view).entry.id, 'together/meta-llama/Llama-3-70b');
  });

  it('a bare vendor id that several workspace providers run is ambiguous, with candidates', () => {
    rejectsWithModelError('shared-model', view, (error) => {
      assert.deepEqual(
        (error.details.candidates as { id: string }[]).map((candidate) => candidate.id).sort(),
        ['fireworks/shared-model', 'together/shared-model'],
      );
    });
  });

  it('a bare vendor id that only a platform offering serves is refused, naming the slug as a candidate', () => {
    rejectsWithModelError('gpt-5.1', view, (error) => {
      assert.deepEqual(
        (error.details.candidates as { id: string }[]).map((candidate) => candidate.id),
        ['openai/gpt-5.1'],
      );
    });
  });

  it('an unknown value is invalid_model without candidates', () => {
    rejectsWithModelError('nothing/like-this', view, (error) =>
      assert.equal(error.details.candidates, undefined),
    );
  });

  it("omitted: the workspace default provider's default model", () => {
    assert.equal(resolveModelId(undefined, view).entry.id, 'fireworks/shared-model');
  });

  it('omitted without a workspace default: the platform default offering, else invalid_model', () => {
    const noWorkspaceDefault = { ...view, providers: [workspaceProvider('prov_a', 'together', ['x'])] };
    assert.equal(resolveModelId(undefined, noWorkspaceDefault).entry.id, 'openai/gpt-5-mini');
    rejectsWithModelError(undefined, { providers: [], platform: [] });
  });

  it('a workspace connection shadows the platform offering with the same slug, so each id names one connection', () => {
    const shadowed: CatalogView = {
      providers: [workspaceProvider('prov_own', 'openai', ['gpt-5.1'])],
      platform: [platform('openai', 'gpt-5.1', 'off_2')],
    };
    assert.equal(visibleConnections(shadowed).length, 1);
    assert.equal(resolveModelId('openai/gpt-5.1', shadowed).connectionRef, 'provider:prov_own');
    assert.equal(resolveModelId('platform:off_2', shadowed).connectionRef, 'platform:off_2');
  });

  it('omitted, with the platform default offering shadowed: the shadowing workspace model, the one its id names', () => {
    const shadowedDefault: CatalogView = {
      providers: [workspaceProvider('prov_own', 'openai', ['gpt-5.1'])],
      platform: [platform('openai', 'gpt-5.1', 'off_2', true)],
    };
    const omitted = resolveModelId(undefined, shadowedDefault);
    assert.equal(omitted.entry.id, 'openai/gpt-5.1');
    assert.equal(omitted.connectionRef, resolveModelId('openai/gpt-5.1', shadowedDefault).connectionRef);
    assert.equal(omitted.connectionRef, 'provider:prov_own');
  });
});
