import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { bearer, type TestServer } from '../../support/test-server.ts';
import { everyStoredValue, assertError, assertInvalid, ULID } from '../admin-support.ts';

/** The admin API's providers cases, on the server of admin-api.test.ts. */
export function providersCases(serverOf: () => TestServer): void {
  describe('workspace providers', () => {
    let server: TestServer;
    before(() => {
      server = serverOf();
    });

    before(async () => {
      await server.admin('POST', '/workspaces', { slug: 'prov' });
    });

    it('POST answers 201 { id }; its models appear in /models with source workspace_provider', async () => {
      const created = await server.admin('POST', '/workspaces/prov/providers', {
        provider: 'acme-llm',
        api: 'openai-chat',
        baseUrl: 'https://127.0.0.1:9/v1',
        models: [{ vendorModelId: 'small', label: 'Small' }, { vendorModelId: 'large' }],
        defaultModel: 'large',
        isDefault: true,
      });
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(created.body), ['id']);
      assert.match(created.body.id, new RegExp(`^prov_${ULID}$`));

      const listed = await server.admin('GET', '/workspaces/prov/providers');
      assert.equal(listed.status, 200);
      const entry = listed.body.providers.find((provider: { id: string }) => provider.id === created.body.id);
      assert.equal(entry.provider, 'acme-llm');
      assert.equal(entry.api, 'openai-chat');
      assert.equal(entry.baseUrl, 'https://127.0.0.1:9/v1');
      assert.equal(entry.defaultModel, 'large');
      assert.equal(entry.isDefault, true);
      assert.equal(entry.hasApiKey, false);
      assert.deepEqual(
        entry.models.map((model: { vendorModelId: string; label: string }) => [
          model.vendorModelId,
          model.label,
        ]),
        [
          ['small', 'Small'],
          ['large', 'large'],
        ],
      );

      const key = await server.admin('POST', '/workspaces/prov/api-keys', {});
      const models = await server.request('GET', '/api/v1/workspaces/prov/models', {
        headers: bearer(key.body.key),
      });
      assert.equal(models.status, 200);
      const small = models.body.models.find((model: { id: string }) => model.id === 'acme-llm/small');
      assert.equal(small?.source, 'workspace_provider');
      assert.equal(models.body.defaultModelId, 'acme-llm/large');
    });

    it('api defaults from well-known provider ids and is required for others', async () => {
      await server.admin('POST', '/workspaces', { slug: 'prov-api' });
      const expected: Record<string, string> = {
        openai: 'openai-responses',
        anthropic: 'anthropic-messages',
        google: 'google-generative-ai',
        mock: 'mock',
      };
      for (const provider of Object.keys(expected)) {
        const created = await server.admin('POST', '/workspaces/prov-api/providers', {
          provider,
          models: [{ vendorModelId: 'default-api-model' }],
        });
        assert.equal(created.status, 201, `${provider}: ${JSON.stringify(created.body)}`);
      }
      const listed = await server.admin('GET', '/workspaces/prov-api/providers');
      for (const [provider, api] of Object.entries(expected)) {
        const entry = listed.body.providers.find(
          (candidate: { provider: string }) => candidate.provider === provider,
        );
        assert.equal(entry?.api, api, `${provider} defaults to ${api}`);
        assert.equal(entry?.defaultModel, 'default-api-model', 'defaultModel defaults to the first model');
      }
      assertInvalid(
        await server.admin('POST', '/workspaces/prov-api/providers', {
          provider: 'ollama-box',
          models: [{ vendorModelId: 'q' }],
        }),
        'api',
      );
    });

    it('the provider apiKey is encrypted at rest; the list shows hasApiKey true and no key', async () => {
      await server.admin('POST', '/workspaces', { slug: 'prov-secret' });
      const apiKey = `sk-provider-${randomBytes(12).toString('hex')}`;
      const created = await server.admin('POST', '/workspaces/prov-secret/providers', {
        provider: 'openai',
        apiKey,
        models: [{ vendorModelId: 'gpt-secret' }],
      });
      assert.equal(created.status, 201);
      const db = server.service.resources.storage.db;
      const row = await db
        .selectFrom('workspace_providers')
        .selectAll()
        .where('id', '=', created.body.id)
        .executeTakeFirstOrThrow();
      assert.ok(row.api_key_enc !== null && row.api_key_enc.length > 0, 'a sealed key is stored');
      assert.ok(!row.api_key_enc.includes(apiKey), 'api_key_enc does not contain the plaintext');
      assert.ok(
        !(await everyStoredValue(server)).some((value) => value.includes(apiKey)),
        'no table holds the plaintext key',
      );

      const listed = await server.admin('GET', '/workspaces/prov-secret/providers');
      assert.ok(!JSON.stringify(listed.body).includes(apiKey), 'the list does not contain the key');
      const entry = listed.body.providers.find((provider: { id: string }) => provider.id === created.body.id);
      assert.equal(entry.hasApiKey, true);
      assert.equal(entry.apiKey, undefined);
      assert.equal(entry.apiKeySealed, undefined);
    });

    it('the same provider and vendor model twice in one workspace answers 409 conflict; another workspace may have it', async () => {
      await server.admin('POST', '/workspaces', { slug: 'prov-dup' });
      const body = { provider: 'dup-llm', api: 'openai-chat', models: [{ vendorModelId: 'm1' }] };
      assert.equal((await server.admin('POST', '/workspaces/prov-dup/providers', body)).status, 201);
      assertError(
        await server.admin('POST', '/workspaces/prov-dup/providers', {
          ...body,
          models: [{ vendorModelId: 'other' }, { vendorModelId: 'm1' }],
          isDefault: true,
        }),
        409,
        'conflict',
      );
      const listed = await server.admin('GET', '/workspaces/prov-dup/providers');
      assert.equal(listed.body.providers.length, 1, 'the conflicting provider was not stored');

      await server.admin('POST', '/workspaces', { slug: 'prov-dup-2' });
      assert.equal((await server.admin('POST', '/workspaces/prov-dup-2/providers', body)).status, 201);
    });

    it('bad provider input answers 400 invalid_request', async () => {
      const path = '/workspaces/prov/providers';
      const base = { provider: 'bad-llm', api: 'openai-chat', models: [{ vendorModelId: 'm' }] };
      assertInvalid(await server.admin('POST', path, { ...base, models: 'm' }), 'models');
      assertInvalid(await server.admin('POST', path, { ...base, models: { vendorModelId: 'm' } }), 'models');
      assertInvalid(await server.admin('POST', path, { ...base, models: [] }), 'models');
      assertInvalid(await server.admin('POST', path, { provider: 'bad-llm', api: 'openai-chat' }), 'models');
      assertInvalid(await server.admin('POST', path, { ...base, models: [{ label: 'no id' }] }), 'models');
      assertInvalid(
        await server.admin('POST', path, { ...base, models: [{ vendorModelId: 'm', extra: 1 }] }),
        'models',
      );
      assertInvalid(
        await server.admin('POST', path, { ...base, defaultModel: 'not-listed' }),
        'defaultModel',
      );
      assertInvalid(
        await server.admin('POST', path, {
          ...base,
          models: [{ vendorModelId: 'm' }, { vendorModelId: 'm' }],
        }),
        'models',
      );
      assertInvalid(await server.admin('POST', path, { ...base, baseUrl: 'localhost:11434' }), 'baseUrl');
      assertInvalid(await server.admin('POST', path, { ...base, api: 'grpc' }), 'api');
      assertInvalid(await server.admin('POST', path, { ...base, provider: 'Bad LLM' }), 'provider');
      assertInvalid(await server.admin('POST', path, { ...base, isDefault: 'yes' }), 'isDefault');
      assertInvalid(await server.admin('POST', path, { ...base, vendorModelId: 'm' }), 'vendorModelId');
      const listed = await server.admin('GET', path);
      assert.ok(
        !listed.body.providers.some((provider: { provider: string }) => provider.provider === 'bad-llm'),
      );
    });

    it('DELETE answers 204 and removes its models; unknown workspace or id answers 404', async () => {
      await server.admin('POST', '/workspaces', { slug: 'prov-del' });
      const created = await server.admin('POST', '/workspaces/prov-del/providers', {
        provider: 'del-llm',
        api: 'openai-chat',
        models: [{ vendorModelId: 'gone' }],
      });
      assert.equal(
        (await server.admin('DELETE', `/workspaces/prov-del/providers/${created.body.id}`)).status,
        204,
      );
      assert.deepEqual((await server.admin('GET', '/workspaces/prov-del/providers')).body.providers, []);
      assertError(
        await server.admin('DELETE', `/workspaces/prov-del/providers/${created.body.id}`),
        404,
        'not_found',
      );
      assertError(await server.admin('GET', '/workspaces/no-such-ws/providers'), 404, 'not_found');
      assertError(
        await server.admin('POST', '/workspaces/no-such-ws/providers', {
          provider: 'openai',
          models: [{ vendorModelId: 'x' }],
        }),
        404,
        'not_found',
      );
      // The same pair may be added again once the old connection is gone.
      const again = await server.admin('POST', '/workspaces/prov-del/providers', {
        provider: 'del-llm',
        api: 'openai-chat',
        models: [{ vendorModelId: 'gone' }],
      });
      assert.equal(again.status, 201);
    });
  });
}
