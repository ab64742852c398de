import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { bearer, createWorkspaceWithKey, type TestServer } from '../../support/test-server.ts';
import { assertError, assertInvalid, ULID } from '../admin-support.ts';

/** The admin API's offerings cases, on the server of admin-api.test.ts. */
export function offeringsCases(serverOf: () => TestServer): void {
  describe('offerings', () => {
    let server: TestServer;
    before(() => {
      server = serverOf();
    });

    it('POST answers 201 { id }; api defaults from well-known providers; the offering is visible to every workspace', async () => {
      const created = await server.admin('POST', '/offerings', {
        provider: 'openai',
        vendorModelId: 'gpt-test-1',
      });
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(created.body), ['id']);
      assert.match(created.body.id, new RegExp(`^off_${ULID}$`));

      const expected: Record<string, string> = {
        anthropic: 'anthropic-messages',
        google: 'google-generative-ai',
        mock: 'mock',
      };
      for (const provider of Object.keys(expected)) {
        assert.equal(
          (await server.admin('POST', '/offerings', { provider, vendorModelId: 'off-default-api' })).status,
          201,
        );
      }
      const listed = await server.admin('GET', '/offerings');
      assert.equal(listed.status, 200);
      const byProvider = (provider: string, vendorModelId: string) =>
        listed.body.offerings.find(
          (offering: { provider: string; vendorModelId: string }) =>
            offering.provider === provider && offering.vendorModelId === vendorModelId,
        );
      assert.equal(byProvider('openai', 'gpt-test-1').api, 'openai-responses');
      for (const [provider, api] of Object.entries(expected))
        assert.equal(byProvider(provider, 'off-default-api').api, api);

      for (const slug of ['off-viewer-a', 'off-viewer-b']) {
        const ws = await createWorkspaceWithKey(server, slug);
        const models = await server.request('GET', `${ws.ws}/models`, { headers: bearer(ws.key) });
        const entry = models.body.models.find((model: { id: string }) => model.id === 'openai/gpt-test-1');
        assert.ok(entry, `${slug} sees the platform offering`);
        assert.equal(entry.source, 'platform_offering');
      }
    });

    it('api is required for a provider id that is not well known', async () => {
      assertInvalid(
        await server.admin('POST', '/offerings', { provider: 'my-vllm', vendorModelId: 'llama' }),
        'api',
      );
      const created = await server.admin('POST', '/offerings', {
        provider: 'my-vllm',
        api: 'openai-chat',
        baseUrl: 'https://127.0.0.1:9/v1',
        vendorModelId: 'llama',
      });
      assert.equal(created.status, 201);
    });

    it('the offering apiKey is encrypted at rest and never listed: hasApiKey true, no key', async () => {
      const apiKey = `sk-offering-${randomBytes(12).toString('hex')}`;
      const created = await server.admin('POST', '/offerings', {
        provider: 'anthropic',
        vendorModelId: 'claude-secret',
        apiKey,
      });
      assert.equal(created.status, 201);
      const db = server.service.resources.storage.db;
      const row = await db
        .selectFrom('offerings')
        .selectAll()
        .where('id', '=', created.body.id)
        .executeTakeFirstOrThrow();
      assert.ok(row.api_key_enc !== null && row.api_key_enc.length > 0, 'a sealed key is stored');
      for (const [column, value] of Object.entries(row)) {
        assert.ok(
          !String(value).includes(apiKey),
          `column offerings.${column} does not hold the plaintext key`,
        );
      }
      const listed = await server.admin('GET', '/offerings');
      assert.ok(!JSON.stringify(listed.body).includes(apiKey));
      const entry = listed.body.offerings.find((offering: { id: string }) => offering.id === created.body.id);
      assert.equal(entry.hasApiKey, true);
      assert.equal(entry.apiKey, undefined);
      assert.equal(entry.apiKeySealed, undefined);
      const keyless = listed.body.offerings.find(
        (offering: { vendorModelId: string }) => offering.vendorModelId === 'gpt-test-1',
      );
      assert.equal(keyless?.hasApiKey, false);
    });

    it('a duplicate provider/vendorModelId offering answers 409 conflict', async () => {
      assert.equal(
        (await server.admin('POST', '/offerings', { provider: 'google', vendorModelId: 'gem-dup' })).status,
        201,
      );
      assertError(
        await server.admin('POST', '/offerings', { provider: 'google', vendorModelId: 'gem-dup' }),
        409,
        'conflict',
      );
    });

    it('DELETE answers 204, then 404 for the same id', async () => {
      const created = await server.admin('POST', '/offerings', {
        provider: 'openai',
        vendorModelId: 'gpt-doomed',
      });
      const deleted = await server.admin('DELETE', `/offerings/${created.body.id}`);
      assert.equal(deleted.status, 204);
      const listed = await server.admin('GET', '/offerings');
      assert.ok(!listed.body.offerings.some((offering: { id: string }) => offering.id === created.body.id));
      assertError(await server.admin('DELETE', `/offerings/${created.body.id}`), 404, 'not_found');
    });

    it('bad offering input answers 400 invalid_request', async () => {
      assertInvalid(await server.admin('POST', '/offerings', { vendorModelId: 'x' }), 'provider');
      assertInvalid(await server.admin('POST', '/offerings', { provider: 'openai' }), 'vendorModelId');
      assertInvalid(
        await server.admin('POST', '/offerings', { provider: 'OpenAI', vendorModelId: 'x' }),
        'provider',
      );
      assertInvalid(
        await server.admin('POST', '/offerings', { provider: 'openai', vendorModelId: 'x', api: 'soap' }),
        'api',
      );
      assertInvalid(
        await server.admin('POST', '/offerings', {
          provider: 'openai',
          vendorModelId: 'x',
          baseUrl: 'not a url',
        }),
        'baseUrl',
      );
      assertInvalid(
        await server.admin('POST', '/offerings', {
          provider: 'openai',
          vendorModelId: 'x',
          baseUrl: 'ftp://127.0.0.1:9/',
        }),
        'baseUrl',
      );
      assertInvalid(
        await server.admin('POST', '/offerings', {
          provider: 'openai',
          vendorModelId: 'x',
          contextWindowTokens: '8k',
        }),
        'contextWindowTokens',
      );
      assertInvalid(
        await server.admin('POST', '/offerings', {
          provider: 'openai',
          vendorModelId: 'x',
          pricing: { inputPer1MUsd: -1 },
        }),
        'pricing',
      );
      assertInvalid(
        await server.admin('POST', '/offerings', { provider: 'openai', vendorModelId: 'x', models: [] }),
        'models',
      );
    });
  });
}
