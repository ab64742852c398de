import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, createWorkspaceWithKey, startTestServer, type TestServer } from '../support/test-server.ts';

const CATALOG_FIELDS = [
  'id',
  'label',
  'provider',
  'vendorModelId',
  'source',
  'contextWindowTokens',
  'pricing',
];

describe('GET {ws}/models: the model catalog', () => {
  let server: TestServer;
  let acme: Awaited<ReturnType<typeof createWorkspaceWithKey>>;

  before(async () => {
    server = await startTestServer({ env: { OPENAI_API_KEY: 'sk-test-from-env' } });
    acme = await createWorkspaceWithKey(server, 'acme');
    await server.admin('POST', '/offerings', {
      provider: 'local-vllm',
      api: 'openai-chat',
      baseUrl: 'http://127.0.0.1:9/v1',
      vendorModelId: 'qwen/qwen3-8b',
      label: 'Qwen3 8B',
      contextWindowTokens: 32768,
      pricing: { inputPer1MUsd: 0.1, outputPer1MUsd: 0.2, cacheReadPer1MUsd: 0.01 },
    });
  });
  after(() => server.close());

  const models = () => server.request('GET', `${acme.ws}/models`, { headers: bearer(acme.key) });

  it('lists platform offerings (environment keys and stored) with every catalog field and a defaultModelId', async () => {
    const response = await models();
    assert.equal(response.status, 200);
    for (const entry of response.body.models)
      assert.deepEqual(Object.keys(entry).sort(), [...CATALOG_FIELDS].sort());
    const ids = response.body.models.map((entry: { id: string }) => entry.id);
    assert.ok(ids.includes('openai/gpt-5-mini'), 'OPENAI_API_KEY adds OpenAI offerings');
    const vllm = response.body.models.find(
      (entry: { id: string }) => entry.id === 'local-vllm/qwen/qwen3-8b',
    );
    assert.deepEqual(vllm, {
      id: 'local-vllm/qwen/qwen3-8b',
      label: 'Qwen3 8B',
      provider: 'local-vllm',
      vendorModelId: 'qwen/qwen3-8b',
      source: 'platform_offering',
      contextWindowTokens: 32768,
      pricing: { inputPer1MUsd: 0.1, outputPer1MUsd: 0.2, cacheReadPer1MUsd: 0.01 },
    });
    const envEntry = response.body.models.find((entry: { id: string }) => entry.id === 'openai/gpt-5-mini');
    assert.equal(envEntry.pricing, null, 'pricing is null when unknown');
    assert.equal(response.body.defaultModelId, 'openai/gpt-5-mini');
  });

  it('never shows the dev mock model outside dev mode', async () => {
    const response = await models();
    assert.ok(!response.body.models.some((entry: { provider: string }) => entry.provider === 'mock'));
  });

  it('lists workspace providers as source workspace_provider, and a default workspace provider sets defaultModelId', async () => {
    const created = await server.admin('POST', '/workspaces/acme/providers', {
      provider: 'anthropic',
      apiKey: 'sk-ant-own',
      models: [{ vendorModelId: 'claude-haiku-4-5', label: 'Haiku' }, { vendorModelId: 'claude-sonnet-4-5' }],
      defaultModel: 'claude-sonnet-4-5',
      isDefault: true,
    });
    assert.equal(created.status, 201);
    const response = await models();
    const own = response.body.models.filter(
      (entry: { source: string }) => entry.source === 'workspace_provider',
    );
    assert.deepEqual(
      own.map((entry: { id: string }) => entry.id),
      ['anthropic/claude-haiku-4-5', 'anthropic/claude-sonnet-4-5'],
    );
    assert.equal(response.body.defaultModelId, 'anthropic/claude-sonnet-4-5');
    const other = await createWorkspaceWithKey(server, 'other');
    const otherModels = await server.request('GET', `${other.ws}/models`, { headers: bearer(other.key) });
    assert.ok(
      !otherModels.body.models.some((entry: { source: string }) => entry.source === 'workspace_provider'),
      "a workspace's providers are its own",
    );
  });

  it('a stored default offering outranks the environment default', async () => {
    const fresh = await startTestServer({ env: { OPENAI_API_KEY: 'sk-env' } });
    try {
      const ws = await createWorkspaceWithKey(fresh, 'w');
      await fresh.admin('POST', '/offerings', { provider: 'mock', vendorModelId: 'echo', isDefault: true });
      const response = await fresh.request('GET', `${ws.ws}/models`, { headers: bearer(ws.key) });
      assert.equal(response.body.defaultModelId, 'mock/echo');
    } finally {
      await fresh.close();
    }
  });
});

describe('dev mode catalog', () => {
  it('with no provider key, the offline mock provider is the default model', async () => {
    const server = await startTestServer({ dev: true });
    try {
      const ws = await createWorkspaceWithKey(server, 'dev');
      const response = await server.request('GET', `${ws.ws}/models`, { headers: bearer(ws.key) });
      assert.equal(response.body.defaultModelId, 'mock/echo');
      assert.equal(response.body.models[0].source, 'platform_offering');
    } finally {
      await server.close();
    }
  });

  it('with a provider key set, dev mode offers that provider and no mock', async () => {
    const server = await startTestServer({ dev: true, env: { ANTHROPIC_API_KEY: 'sk-ant' } });
    try {
      const ws = await createWorkspaceWithKey(server, 'dev');
      const response = await server.request('GET', `${ws.ws}/models`, { headers: bearer(ws.key) });
      assert.equal(response.body.defaultModelId, 'anthropic/claude-sonnet-4-5');
      assert.ok(!response.body.models.some((entry: { provider: string }) => entry.provider === 'mock'));
    } finally {
      await server.close();
    }
  });
});
