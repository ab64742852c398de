import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { createService, type Service } from '../../src/main.ts';
import type { Database } from '../../src/storage/schema.ts';
import { createTestDatabase, type TestDatabase } from '../support/engines.ts';
import {
  bearer,
  createWorkspaceWithKey,
  startTestServer,
  type TestResponse,
  type TestServer,
} from '../support/test-server.ts';

const TABLES: readonly (keyof Database)[] = [
  'workspaces',
  'api_keys',
  'offerings',
  'workspace_providers',
  'provider_models',
  'agents',
  'workspace_tools',
  'users',
  'oauth_apps',
  'runs',
  'run_events',
];

/** Every stored cell of every table, as text: a secret stored in plaintext anywhere would show up here. */
async function everyStoredValue(server: TestServer): Promise<string[]> {
  const db = server.service.resources.storage.db;
  const values: string[] = [];
  for (const table of TABLES) {
    const rows = (await db.selectFrom(table).selectAll().execute()) as Record<string, unknown>[];
    for (const row of rows) for (const value of Object.values(row)) values.push(String(value));
  }
  return values;
}

function assertError(response: TestResponse, status: number, error: string): void {
  assert.equal(
    response.status,
    status,
    `expected ${status}, got ${response.status}: ${JSON.stringify(response.body)}`,
  );
  assert.equal(response.body.error, error, JSON.stringify(response.body));
  assert.equal(typeof response.body.message, 'string');
  assert.ok(response.body.message.length > 0, 'message is not empty');
}

function assertInvalid(response: TestResponse, field?: string): void {
  assertError(response, 400, 'invalid_request');
  if (field !== undefined) assert.match(response.body.message, new RegExp(field), `message names '${field}'`);
}

const ULID = '[0-9a-hjkmnp-tv-z]{26}';
const UNKNOWN_ID = 'xyz_00000000000000000000000000';

describe('admin API over HTTP', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('authentication', () => {
    it('a request without Authorization answers 401 { error, message }', async () => {
      const response = await server.request('GET', '/admin/v1/workspaces');
      assertError(response, 401, 'unauthorized');
    });

    it('a wrong admin token answers 401 and changes nothing', async () => {
      const response = await server.request('POST', '/admin/v1/workspaces', {
        body: { slug: 'intruder' },
        headers: bearer(`${server.adminToken}x`),
      });
      assertError(response, 401, 'unauthorized');
      assert.equal((await server.admin('GET', '/workspaces/intruder')).status, 404);
    });

    it('a workspace API key is not an admin token: 401', async () => {
      const ws = await createWorkspaceWithKey(server, 'auth-key-not-admin');
      const response = await server.request('GET', '/admin/v1/workspaces', { headers: bearer(ws.key) });
      assertError(response, 401, 'unauthorized');
    });

    // Regression: adminAuth ran as a preHandler hook, after body parsing, so an unauthenticated request
    // with a bad or oversized body got 400/413 instead of 401.
    it('the admin token is checked before the body is read: a missing or wrong token answers 401 even for a bad or oversized body', async () => {
      for (const headers of [{}, bearer('wrong-token-wrong-token')]) {
        for (const body of ['{"slug": ', 'x'.repeat(2 * 1024 * 1024)]) {
          const response = await fetch(`${server.baseUrl}/admin/v1/workspaces`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body,
          });
          const json = (await response.json()) as { error: string };
          assert.equal(response.status, 401, `body of ${body.length} bytes: ${JSON.stringify(json)}`);
          assert.equal(json.error, 'unauthorized');
        }
      }
    });

    it('the right admin token is accepted', async () => {
      assert.equal((await server.admin('GET', '/workspaces')).status, 200);
    });
  });

  describe('workspaces', () => {
    it('POST /workspaces answers 201 { id, slug } and features default to true', async () => {
      const created = await server.admin('POST', '/workspaces', { slug: 'ws-defaults' });
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(created.body).sort(), ['id', 'slug']);
      assert.match(created.body.id, new RegExp(`^ws_${ULID}$`));
      assert.equal(created.body.slug, 'ws-defaults');

      const fetched = await server.admin('GET', '/workspaces/ws-defaults');
      assert.equal(fetched.status, 200);
      assert.equal(fetched.body.id, created.body.id);
      assert.equal(fetched.body.slug, 'ws-defaults');
      assert.equal(fetched.body.name, 'ws-defaults', 'name defaults to the slug');
      assert.deepEqual(fetched.body.features, { apiKeys: true, oauthApps: true });
      assert.deepEqual(fetched.body.rateLimits, {});
      assert.equal(fetched.body.maxConcurrentRuns, 100, 'maxConcurrentRuns defaults to 100');
    });

    it('POST /workspaces stores name, features and rateLimits as given', async () => {
      const created = await server.admin('POST', '/workspaces', {
        slug: 'ws-full',
        name: 'Full Co',
        features: { oauthApps: false },
        rateLimits: { runStart: 5, otherMutations: 100 },
        maxConcurrentRuns: 3,
      });
      assert.equal(created.status, 201);
      const fetched = await server.admin('GET', '/workspaces/ws-full');
      assert.equal(fetched.body.name, 'Full Co');
      assert.equal(fetched.body.maxConcurrentRuns, 3);
      assert.deepEqual(fetched.body.features, { apiKeys: true, oauthApps: false });
      assert.deepEqual(fetched.body.rateLimits, { runStart: 5, otherMutations: 100 });
    });

    it('GET /workspaces lists created workspaces', async () => {
      await server.admin('POST', '/workspaces', { slug: 'ws-listed' });
      const listed = await server.admin('GET', '/workspaces');
      assert.equal(listed.status, 200);
      assert.ok(Array.isArray(listed.body.workspaces));
      const entry = listed.body.workspaces.find((w: { slug: string }) => w.slug === 'ws-listed');
      assert.ok(entry, 'the new workspace is listed');
      assert.deepEqual(entry.features, { apiKeys: true, oauthApps: true });
    });

    it('a duplicate slug answers 409 { error: "conflict", message }', async () => {
      assert.equal((await server.admin('POST', '/workspaces', { slug: 'ws-dup' })).status, 201);
      assertError(await server.admin('POST', '/workspaces', { slug: 'ws-dup' }), 409, 'conflict');
    });

    it('PATCH changes only the given fields, merging features and rateLimits, and answers 200 with the workspace', async () => {
      await server.admin('POST', '/workspaces', {
        slug: 'ws-patch',
        name: 'Before',
        rateLimits: { runStart: 7 },
      });
      const patched = await server.admin('PATCH', '/workspaces/ws-patch', {
        features: { oauthApps: false },
        rateLimits: { lifecycle: 50 },
      });
      assert.equal(patched.status, 200);
      assert.equal(patched.body.slug, 'ws-patch');
      assert.equal(patched.body.name, 'Before');
      assert.deepEqual(patched.body.features, { apiKeys: true, oauthApps: false });
      assert.deepEqual(patched.body.rateLimits, { runStart: 7, lifecycle: 50 });

      const limited = await server.admin('PATCH', '/workspaces/ws-patch', { maxConcurrentRuns: 250 });
      assert.equal(limited.body.maxConcurrentRuns, 250);
      assert.deepEqual(limited.body.rateLimits, { runStart: 7, lifecycle: 50 }, 'the rest unchanged');

      const renamed = await server.admin('PATCH', '/workspaces/ws-patch', { name: 'After' });
      assert.equal(renamed.status, 200);
      assert.equal(renamed.body.name, 'After');
      assert.deepEqual(renamed.body.features, { apiKeys: true, oauthApps: false });
      assert.equal((await server.admin('GET', '/workspaces/ws-patch')).body.name, 'After');
    });

    it('PATCH features { apiKeys: false } makes the workspace keys answer 403 api_keys_plan; true restores them', async () => {
      const ws = await createWorkspaceWithKey(server, 'ws-plan');
      assert.equal((await server.request('GET', `${ws.ws}/models`, { headers: bearer(ws.key) })).status, 200);

      assert.equal(
        (await server.admin('PATCH', '/workspaces/ws-plan', { features: { apiKeys: false } })).status,
        200,
      );
      const blocked = await server.request('GET', `${ws.ws}/models`, { headers: bearer(ws.key) });
      assert.equal(blocked.status, 403);
      assert.equal(blocked.body.error, 'api_keys_plan');
      assert.equal(typeof blocked.body.message, 'string');

      assert.equal(
        (await server.admin('PATCH', '/workspaces/ws-plan', { features: { apiKeys: true } })).status,
        200,
      );
      assert.equal((await server.request('GET', `${ws.ws}/models`, { headers: bearer(ws.key) })).status, 200);
    });

    it('DELETE answers 204, then the workspace is gone (404) and its keys answer 401', async () => {
      const ws = await createWorkspaceWithKey(server, 'ws-delete');
      const deleted = await server.admin('DELETE', '/workspaces/ws-delete');
      assert.equal(deleted.status, 204);
      assert.equal(deleted.body, undefined, '204 has no body');
      assertError(await server.admin('GET', '/workspaces/ws-delete'), 404, 'not_found');
      assert.equal((await server.request('GET', `${ws.ws}/models`, { headers: bearer(ws.key) })).status, 401);
      assertError(await server.admin('DELETE', '/workspaces/ws-delete'), 404, 'not_found');
    });

    it('an unknown slug answers 404 { error: "not_found", message } on get, patch and delete', async () => {
      assertError(await server.admin('GET', '/workspaces/no-such-ws'), 404, 'not_found');
      assertError(await server.admin('PATCH', '/workspaces/no-such-ws', { name: 'x' }), 404, 'not_found');
      assertError(await server.admin('DELETE', '/workspaces/no-such-ws'), 404, 'not_found');
    });

    it('bad workspace input answers 400 invalid_request naming the field, never 500', async () => {
      assertInvalid(await server.admin('POST', '/workspaces', {}), 'slug');
      assertInvalid(await server.admin('POST', '/workspaces', { name: 'no slug' }), 'slug');
      assertInvalid(await server.admin('POST', '/workspaces', { slug: 'Upper-Case' }), 'slug');
      assertInvalid(await server.admin('POST', '/workspaces', { slug: '-leading-dash' }), 'slug');
      assertInvalid(await server.admin('POST', '/workspaces', { slug: 'has space' }), 'slug');
      assertInvalid(await server.admin('POST', '/workspaces', { slug: 'a'.repeat(65) }), 'slug');
      assertInvalid(await server.admin('POST', '/workspaces', { slug: 42 }), 'slug');
      assertInvalid(await server.admin('POST', '/workspaces', { slug: 'ws-bad', bogus: true }), 'bogus');
      assertInvalid(
        await server.admin('POST', '/workspaces', { slug: 'ws-bad', features: { apiKeys: 'yes' } }),
        'features',
      );
      assertInvalid(
        await server.admin('POST', '/workspaces', { slug: 'ws-bad', features: { billing: true } }),
        'features',
      );
      assertInvalid(
        await server.admin('POST', '/workspaces', { slug: 'ws-bad', rateLimits: { runStart: 0 } }),
        'rateLimits',
      );
      for (const maxConcurrentRuns of [0, 2.5, '10', 100_001]) {
        assertInvalid(
          await server.admin('POST', '/workspaces', { slug: 'ws-bad', maxConcurrentRuns }),
          'maxConcurrentRuns',
        );
        assertInvalid(
          await server.admin('PATCH', '/workspaces/ws-defaults', { maxConcurrentRuns }),
          'maxConcurrentRuns',
        );
      }
      assertInvalid(
        await server.admin('POST', '/workspaces', { slug: 'ws-bad', rateLimits: { runStart: 1.5 } }),
        'rateLimits',
      );
      assertInvalid(
        await server.admin('POST', '/workspaces', { slug: 'ws-bad', rateLimits: { runStart: '10' } }),
        'rateLimits',
      );
      assertInvalid(await server.admin('POST', '/workspaces', { slug: 'ws-bad', name: '' }), 'name');
      assertInvalid(await server.admin('POST', '/workspaces', ['ws-bad']));
      assertInvalid(await server.admin('POST', '/workspaces', 'ws-bad'));
      assert.equal((await server.admin('GET', '/workspaces/ws-bad')).status, 404, 'nothing was created');

      await server.admin('POST', '/workspaces', { slug: 'ws-badpatch' });
      assertInvalid(await server.admin('PATCH', '/workspaces/ws-badpatch', { slug: 'renamed' }), 'slug');
      assertInvalid(
        await server.admin('PATCH', '/workspaces/ws-badpatch', { features: { apiKeys: 1 } }),
        'features',
      );
      assertInvalid(
        await server.admin('PATCH', '/workspaces/ws-badpatch', { rateLimits: { lifecycle: -1 } }),
        'rateLimits',
      );
    });

    // Regression: Fastify answered a malformed path itself (FST_ERR_BAD_URL) with
    // { error: 'Bad Request', code, statusCode }, bypassing the app's error handler.
    it('a slug with malformed percent-encoding answers 400 { error: "invalid_request", message }', async () => {
      const response = await server.admin('GET', '/workspaces/%E0%A4%A');
      assertInvalid(response);
    });

    it('a body that is not valid JSON answers 400 invalid_request', async () => {
      const response = await server.request('POST', '/admin/v1/workspaces', {
        body: '{"slug": "ws-json",',
        headers: bearer(server.adminToken),
      });
      assertInvalid(response);
      const patch = await server.request('PATCH', '/admin/v1/workspaces/ws-json', {
        body: 'not json at all',
        headers: bearer(server.adminToken),
      });
      assertInvalid(patch);
    });
  });

  describe('api-keys', () => {
    before(async () => {
      await server.admin('POST', '/workspaces', { slug: 'keys' });
    });

    it('POST answers 201 { id, key } with an svc_ key that authenticates on the public API', async () => {
      const created = await server.admin('POST', '/workspaces/keys/api-keys', { name: 'ci' });
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(created.body).sort(), ['id', 'key']);
      assert.match(created.body.id, new RegExp(`^key_${ULID}$`));
      assert.match(created.body.key, /^svc_[A-Za-z0-9]{20,}$/);
      const models = await server.request('GET', '/api/v1/workspaces/keys/models', {
        headers: bearer(created.body.key),
      });
      assert.equal(models.status, 200);
    });

    it('usage defaults to developer_api; name, agentIds and usage are listed', async () => {
      const created = await server.admin('POST', '/workspaces/keys/api-keys', {});
      const internal = await server.admin('POST', '/workspaces/keys/api-keys', {
        name: 'backend',
        usage: 'internal',
      });
      const listed = await server.admin('GET', '/workspaces/keys/api-keys');
      assert.equal(listed.status, 200);
      const plain = listed.body.apiKeys.find((key: { id: string }) => key.id === created.body.id);
      assert.equal(plain.usage, 'developer_api');
      assert.deepEqual(plain.agentIds, []);
      assert.equal(plain.revokedAt, null);
      const backend = listed.body.apiKeys.find((key: { id: string }) => key.id === internal.body.id);
      assert.equal(backend.usage, 'internal');
      assert.equal(backend.name, 'backend');
    });

    it('the key is shown once: the list never contains it, and the database stores no plaintext copy', async () => {
      const created = await server.admin('POST', '/workspaces/keys/api-keys', { name: 'secretive' });
      const key: string = created.body.key;

      const listed = await server.admin('GET', '/workspaces/keys/api-keys');
      const listedText = JSON.stringify(listed.body);
      assert.ok(!listedText.includes(key), 'the list does not contain the key');
      const entry = listed.body.apiKeys.find((apiKey: { id: string }) => apiKey.id === created.body.id);
      assert.ok(entry, 'the key is listed by id');
      assert.equal(entry.key, undefined);
      assert.equal(entry.keyHash, undefined, 'the hash is not listed either');
      assert.ok(key.startsWith(entry.keyPrefix), 'the listed prefix is the start of the key');
      assert.ok(entry.keyPrefix.length < key.length / 2, 'the prefix is too short to use');

      const db = server.service.resources.storage.db;
      const row = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', created.body.id)
        .executeTakeFirstOrThrow();
      for (const [column, value] of Object.entries(row)) {
        assert.ok(!String(value).includes(key), `column api_keys.${column} does not hold the plaintext key`);
      }
      assert.ok(
        !(await everyStoredValue(server)).some((value) => value.includes(key)),
        'no table holds the plaintext key',
      );
    });

    it('DELETE answers 204; the key answers 401 on GET /models from then on; a second delete is 404', async () => {
      const created = await server.admin('POST', '/workspaces/keys/api-keys', {});
      const models = '/api/v1/workspaces/keys/models';
      assert.equal((await server.request('GET', models, { headers: bearer(created.body.key) })).status, 200);
      const deleted = await server.admin('DELETE', `/workspaces/keys/api-keys/${created.body.id}`);
      assert.equal(deleted.status, 204);
      assert.equal(deleted.body, undefined);
      assert.equal((await server.request('GET', models, { headers: bearer(created.body.key) })).status, 401);
      assert.equal(
        (await server.request('GET', models, { headers: { 'x-api-key': created.body.key } })).status,
        401,
      );
      assertError(
        await server.admin('DELETE', `/workspaces/keys/api-keys/${created.body.id}`),
        404,
        'not_found',
      );
    });

    it('agentIds are checked against the workspace agents', async () => {
      const agent = await server.admin('POST', '/workspaces/keys/agents', {
        name: 'Scoped',
        systemPrompt: 'hi',
      });
      assert.equal(agent.status, 201);
      const scoped = await server.admin('POST', '/workspaces/keys/api-keys', { agentIds: [agent.body.id] });
      assert.equal(scoped.status, 201);
      const listed = await server.admin('GET', '/workspaces/keys/api-keys');
      const entry = listed.body.apiKeys.find((key: { id: string }) => key.id === scoped.body.id);
      assert.deepEqual(entry.agentIds, [agent.body.id]);
      assertInvalid(
        await server.admin('POST', '/workspaces/keys/api-keys', { agentIds: ['agt_unknown'] }),
        'agentIds',
      );
    });

    it('bad api-key input answers 400 invalid_request', async () => {
      assertInvalid(await server.admin('POST', '/workspaces/keys/api-keys', { usage: 'admin' }), 'usage');
      assertInvalid(
        await server.admin('POST', '/workspaces/keys/api-keys', { agentIds: 'agt_1' }),
        'agentIds',
      );
      assertInvalid(await server.admin('POST', '/workspaces/keys/api-keys', { name: 5 }), 'name');
      assertInvalid(await server.admin('POST', '/workspaces/keys/api-keys', { key: 'svc_mine' }), 'key');
      assertInvalid(
        await server.admin('POST', '/workspaces/keys/api-keys', { expiresAt: 'tomorrow' }),
        'expiresAt',
      );
    });

    it('unknown workspace or key id answers 404 not_found', async () => {
      assertError(await server.admin('POST', '/workspaces/no-such-ws/api-keys', {}), 404, 'not_found');
      assertError(await server.admin('GET', '/workspaces/no-such-ws/api-keys'), 404, 'not_found');
      assertError(await server.admin('DELETE', `/workspaces/keys/api-keys/${UNKNOWN_ID}`), 404, 'not_found');
    });

    it("a key cannot be deleted through another workspace's path", async () => {
      const other = await createWorkspaceWithKey(server, 'keys-other');
      assertError(await server.admin('DELETE', `/workspaces/keys/api-keys/${other.keyId}`), 404, 'not_found');
      assert.equal(
        (await server.request('GET', `${other.ws}/models`, { headers: bearer(other.key) })).status,
        200,
      );
    });
  });

  describe('offerings', () => {
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

  describe('workspace providers', () => {
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

  describe('agents', () => {
    before(async () => {
      await server.admin('POST', '/workspaces', { slug: 'agents' });
      await server.admin('POST', '/workspaces/agents/providers', {
        provider: 'agent-llm',
        api: 'openai-chat',
        baseUrl: 'https://127.0.0.1:9/v1',
        models: [{ vendorModelId: 'fast' }],
      });
    });

    it('POST answers 201 { id, slug } with the slug derived from the name', async () => {
      const created = await server.admin('POST', '/workspaces/agents/agents', {
        name: 'Support Bot',
        systemPrompt: 'Be kind.',
      });
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(created.body).sort(), ['id', 'slug']);
      assert.match(created.body.id, new RegExp(`^agt_${ULID}$`));
      assert.equal(created.body.slug, 'support-bot');

      const listed = await server.admin('GET', '/workspaces/agents/agents');
      assert.equal(listed.status, 200);
      const entry = listed.body.agents.find((agent: { id: string }) => agent.id === created.body.id);
      assert.equal(entry.name, 'Support Bot');
      assert.equal(entry.systemPrompt, 'Be kind.');
      assert.equal(entry.modelId, null);
      assert.equal(entry.useWorkspaceDefaultModel, true, 'no modelId means the workspace default model');
    });

    it('an explicit slug, a resolvable modelId, tools and reasoningLevel are stored', async () => {
      const tool = await server.admin('POST', '/workspaces/agents/tools', {
        name: 'lookup',
        http: { url: 'https://127.0.0.1:9/lookup' },
      });
      const created = await server.admin('POST', '/workspaces/agents/agents', {
        name: 'Researcher',
        slug: 'res-1',
        systemPrompt: 'Research.',
        modelId: 'agent-llm/fast',
        reasoningLevel: 'high',
        tools: [{ kind: 'svc', id: tool.body.id }],
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.slug, 'res-1');
      const entry = (await server.admin('GET', '/workspaces/agents/agents')).body.agents.find(
        (agent: { id: string }) => agent.id === created.body.id,
      );
      assert.equal(entry.modelId, 'agent-llm/fast');
      assert.equal(entry.useWorkspaceDefaultModel, false);
      assert.equal(entry.reasoningLevel, 'high');
      assert.deepEqual(entry.tools, [{ kind: 'svc', id: tool.body.id }]);
    });

    it('lists show the header names of tool refs, never their values (credentials)', async () => {
      const created = await server.admin('POST', '/workspaces/agents/agents', {
        name: 'Connector',
        systemPrompt: 'Connect.',
        tools: [
          {
            kind: 'mcp',
            name: 'crm',
            url: 'https://127.0.0.1:9/mcp',
            headers: { authorization: 'Bearer secret-mcp-token', 'x-team': 'blue' },
          },
        ],
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const listed = await server.admin('GET', '/workspaces/agents/agents');
      const entry = listed.body.agents.find((agent: { id: string }) => agent.id === created.body.id);
      assert.deepEqual(entry.tools[0].headers, ['authorization', 'x-team']);
      assert.doesNotMatch(JSON.stringify(listed.body), /secret-mcp-token/);
    });

    it('a modelId that does not resolve answers 400 invalid_model and stores nothing', async () => {
      const response = await server.admin('POST', '/workspaces/agents/agents', {
        name: 'Lost',
        systemPrompt: 'x',
        modelId: 'nope/never',
      });
      assertError(response, 400, 'invalid_model');
      const listed = await server.admin('GET', '/workspaces/agents/agents');
      assert.ok(!listed.body.agents.some((agent: { name: string }) => agent.name === 'Lost'));
    });

    it('a duplicate agent slug in the workspace answers 409 conflict', async () => {
      assert.equal(
        (await server.admin('POST', '/workspaces/agents/agents', { name: 'Twin', systemPrompt: 'a' })).status,
        201,
      );
      assertError(
        await server.admin('POST', '/workspaces/agents/agents', { name: 'Twin', systemPrompt: 'b' }),
        409,
        'conflict',
      );
    });

    it('bad agent input answers 400 invalid_request', async () => {
      const path = '/workspaces/agents/agents';
      assertInvalid(await server.admin('POST', path, { systemPrompt: 'x' }), 'name');
      assertInvalid(await server.admin('POST', path, { name: 'No Prompt' }), 'systemPrompt');
      assertInvalid(await server.admin('POST', path, { name: 'Bad', systemPrompt: '' }), 'systemPrompt');
      assertInvalid(
        await server.admin('POST', path, { name: 'Bad', slug: 'Bad Slug', systemPrompt: 'x' }),
        'slug',
      );
      assertInvalid(
        await server.admin('POST', path, { name: 'Bad', systemPrompt: 'x', reasoningLevel: 'max' }),
        'reasoningLevel',
      );
      assertInvalid(
        await server.admin('POST', path, { name: 'Bad', systemPrompt: 'x', tools: [{ kind: 'shell' }] }),
        'tools',
      );
      assertInvalid(
        await server.admin('POST', path, {
          name: 'Bad',
          systemPrompt: 'x',
          tools: [{ kind: 'local', name: 'has-dash' }],
        }),
        'tools',
      );
      assertInvalid(await server.admin('POST', path, { name: 'Bad', systemPrompt: 'x', tools: {} }), 'tools');
      assertInvalid(
        await server.admin('POST', path, { name: 'Bad', systemPrompt: 'x', temperature: 0.2 }),
        'temperature',
      );
      assertInvalid(
        await server.admin('POST', path, {
          name: 'Bad',
          systemPrompt: 'x',
          modelId: 'agent-llm/fast',
          useWorkspaceDefaultModel: true,
        }),
        'modelId',
      );
      const listed = await server.admin('GET', path);
      assert.ok(!listed.body.agents.some((agent: { name: string }) => agent.name === 'Bad'));
    });

    it('DELETE answers 204, then 404; unknown workspace answers 404', async () => {
      const created = await server.admin('POST', '/workspaces/agents/agents', {
        name: 'Temp',
        systemPrompt: 'x',
      });
      assert.equal(
        (await server.admin('DELETE', `/workspaces/agents/agents/${created.body.id}`)).status,
        204,
      );
      assertError(
        await server.admin('DELETE', `/workspaces/agents/agents/${created.body.id}`),
        404,
        'not_found',
      );
      assertError(await server.admin('GET', '/workspaces/no-such-ws/agents'), 404, 'not_found');
      assertError(
        await server.admin('POST', '/workspaces/no-such-ws/agents', { name: 'A', systemPrompt: 'x' }),
        404,
        'not_found',
      );
    });
  });

  describe('tools', () => {
    before(async () => {
      await server.admin('POST', '/workspaces', { slug: 'tools' });
    });

    it('POST answers 201 { id }; the list shows defaults and header names but not header values', async () => {
      const secretHeader = `Bearer tool-${randomBytes(8).toString('hex')}`;
      const created = await server.admin('POST', '/workspaces/tools/tools', {
        name: 'get_weather',
        description: 'Weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
        http: { url: 'https://127.0.0.1:9/weather', headers: { authorization: secretHeader } },
      });
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(created.body), ['id']);
      assert.match(created.body.id, new RegExp(`^tool_${ULID}$`));

      const listed = await server.admin('GET', '/workspaces/tools/tools');
      assert.equal(listed.status, 200);
      assert.ok(!JSON.stringify(listed.body).includes(secretHeader), 'header values are not listed');
      const entry = listed.body.tools.find((tool: { id: string }) => tool.id === created.body.id);
      assert.equal(entry.name, 'get_weather');
      assert.equal(entry.http.url, 'https://127.0.0.1:9/weather');
      assert.equal(entry.http.method, 'POST', 'method defaults to POST');
      assert.deepEqual(entry.http.headers, ['authorization']);

      const minimal = await server.admin('POST', '/workspaces/tools/tools', {
        name: 'ping',
        http: { url: 'http://127.0.0.1:9/ping' },
      });
      assert.equal(minimal.status, 201);
    });

    it('tool names must match ^[a-zA-Z0-9_]{1,64}$', async () => {
      const http = { url: 'https://127.0.0.1:9/t' };
      for (const name of ['has-dash', 'has space', 'dotted.name', '', 'x'.repeat(65), 'émoji']) {
        assertInvalid(await server.admin('POST', '/workspaces/tools/tools', { name, http }), 'name');
      }
      for (const name of ['A_b_9', 'x'.repeat(64)]) {
        assert.equal(
          (await server.admin('POST', '/workspaces/tools/tools', { name, http })).status,
          201,
          name,
        );
      }
    });

    it('a duplicate tool name in the workspace answers 409 conflict', async () => {
      const body = { name: 'dup_tool', http: { url: 'https://127.0.0.1:9/t' } };
      assert.equal((await server.admin('POST', '/workspaces/tools/tools', body)).status, 201);
      assertError(await server.admin('POST', '/workspaces/tools/tools', body), 409, 'conflict');
    });

    it('bad tool input answers 400 invalid_request', async () => {
      const path = '/workspaces/tools/tools';
      assertInvalid(await server.admin('POST', path, { name: 'no_http' }), 'http');
      assertInvalid(
        await server.admin('POST', path, { name: 'bad_url', http: { url: 'not a url' } }),
        'http',
      );
      assertInvalid(
        await server.admin('POST', path, { name: 'bad_url', http: { url: 'file:///etc/passwd' } }),
        'http',
      );
      assertInvalid(
        await server.admin('POST', path, {
          name: 'bad_method',
          http: { url: 'https://127.0.0.1:9/', method: 'TRACE' },
        }),
        'http',
      );
      assertInvalid(
        await server.admin('POST', path, {
          name: 'bad_headers',
          http: { url: 'https://127.0.0.1:9/', headers: { a: 1 } },
        }),
        'http',
      );
      assertInvalid(
        await server.admin('POST', path, {
          name: 'bad_params',
          parameters: [],
          http: { url: 'https://127.0.0.1:9/' },
        }),
        'parameters',
      );
      assertInvalid(
        await server.admin('POST', path, {
          name: 'bad_extra',
          http: { url: 'https://127.0.0.1:9/' },
          kind: 'svc',
        }),
        'kind',
      );
    });

    it('DELETE answers 204, then 404', async () => {
      const created = await server.admin('POST', '/workspaces/tools/tools', {
        name: 'temp_tool',
        http: { url: 'https://127.0.0.1:9/' },
      });
      assert.equal((await server.admin('DELETE', `/workspaces/tools/tools/${created.body.id}`)).status, 204);
      assertError(
        await server.admin('DELETE', `/workspaces/tools/tools/${created.body.id}`),
        404,
        'not_found',
      );
      assertError(await server.admin('GET', '/workspaces/no-such-ws/tools'), 404, 'not_found');
    });
  });

  describe('users', () => {
    before(async () => {
      await server.admin('POST', '/workspaces', { slug: 'users' });
    });

    it('POST answers 201 { id }; the list never shows the password or its hash', async () => {
      const password = `pw-${randomBytes(8).toString('hex')}`;
      const created = await server.admin('POST', '/workspaces/users/users', {
        email: 'Ada@Example.test',
        password,
        name: 'Ada',
      });
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(created.body), ['id']);
      assert.match(created.body.id, new RegExp(`^usr_${ULID}$`));

      const listed = await server.admin('GET', '/workspaces/users/users');
      assert.equal(listed.status, 200);
      const text = JSON.stringify(listed.body);
      assert.ok(!text.includes(password));
      assert.ok(!/password/i.test(text), 'no password field is listed');
      const entry = listed.body.users.find((user: { id: string }) => user.id === created.body.id);
      assert.equal(entry.email, 'ada@example.test');
      assert.equal(entry.name, 'Ada');
      assert.ok(
        !(await everyStoredValue(server)).some((value) => value.includes(password)),
        'the password is stored hashed',
      );
    });

    it('a duplicate email in the workspace answers 409 conflict', async () => {
      assert.equal(
        (
          await server.admin('POST', '/workspaces/users/users', {
            email: 'dup@example.test',
            password: 'password1',
          })
        ).status,
        201,
      );
      assertError(
        await server.admin('POST', '/workspaces/users/users', {
          email: 'DUP@example.test',
          password: 'password2',
        }),
        409,
        'conflict',
      );
    });

    it('bad user input answers 400 invalid_request', async () => {
      const path = '/workspaces/users/users';
      assertInvalid(await server.admin('POST', path, { password: 'password1' }), 'email');
      assertInvalid(
        await server.admin('POST', path, { email: 'not-an-email', password: 'password1' }),
        'email',
      );
      assertInvalid(
        await server.admin('POST', path, { email: 'short@example.test', password: 'short' }),
        'password',
      );
      assertInvalid(
        await server.admin('POST', path, { email: 'num@example.test', password: 12345678 }),
        'password',
      );
      assertInvalid(
        await server.admin('POST', path, {
          email: 'role@example.test',
          password: 'password1',
          role: 'admin',
        }),
        'role',
      );
    });

    it('DELETE answers 204, then 404', async () => {
      const created = await server.admin('POST', '/workspaces/users/users', {
        email: 'gone@example.test',
        password: 'password1',
      });
      assert.equal((await server.admin('DELETE', `/workspaces/users/users/${created.body.id}`)).status, 204);
      assertError(
        await server.admin('DELETE', `/workspaces/users/users/${created.body.id}`),
        404,
        'not_found',
      );
      assertError(await server.admin('GET', '/workspaces/no-such-ws/users'), 404, 'not_found');
    });
  });

  describe('oauth-apps', () => {
    before(async () => {
      await server.admin('POST', '/workspaces', { slug: 'apps' });
    });

    it('POST answers 201 { clientId, clientSecret }; the secret is never listed nor stored in plaintext', async () => {
      const created = await server.admin('POST', '/workspaces/apps/oauth-apps', {
        name: 'Partner',
        redirectUris: ['https://127.0.0.1:9/callback'],
      });
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(created.body).sort(), ['clientId', 'clientSecret']);
      assert.match(created.body.clientId, new RegExp(`^app_${ULID}$`));
      assert.equal(typeof created.body.clientSecret, 'string');
      assert.ok(created.body.clientSecret.length >= 32, 'the client secret is long enough');

      const listed = await server.admin('GET', '/workspaces/apps/oauth-apps');
      assert.equal(listed.status, 200);
      assert.ok(!JSON.stringify(listed.body).includes(created.body.clientSecret));
      const entry = listed.body.oauthApps.find(
        (app: { clientId: string }) => app.clientId === created.body.clientId,
      );
      assert.ok(entry, 'the app is listed by clientId');
      assert.equal(entry.name, 'Partner');
      assert.deepEqual(entry.redirectUris, ['https://127.0.0.1:9/callback']);
      assert.equal(entry.clientSecret, undefined);
      assert.equal(entry.clientSecretHash, undefined);
      assert.ok(
        !(await everyStoredValue(server)).some((value) => value.includes(created.body.clientSecret)),
        'the client secret is stored hashed',
      );
    });

    it('bad oauth-app input answers 400 invalid_request', async () => {
      const path = '/workspaces/apps/oauth-apps';
      assertInvalid(await server.admin('POST', path, { redirectUris: ['https://127.0.0.1:9/cb'] }), 'name');
      assertInvalid(await server.admin('POST', path, { name: 'A' }), 'redirectUris');
      assertInvalid(await server.admin('POST', path, { name: 'A', redirectUris: [] }), 'redirectUris');
      assertInvalid(
        await server.admin('POST', path, { name: 'A', redirectUris: 'https://127.0.0.1:9/cb' }),
        'redirectUris',
      );
      assertInvalid(
        await server.admin('POST', path, { name: 'A', redirectUris: ['not a url'] }),
        'redirectUris',
      );
      assertInvalid(
        await server.admin('POST', path, { name: 'A', redirectUris: ['javascript:alert(1)'] }),
        'redirectUris',
      );
    });

    it('DELETE answers 204, then 404', async () => {
      const created = await server.admin('POST', '/workspaces/apps/oauth-apps', {
        name: 'Temp',
        redirectUris: ['https://127.0.0.1:9/cb'],
      });
      assert.equal(
        (await server.admin('DELETE', `/workspaces/apps/oauth-apps/${created.body.clientId}`)).status,
        204,
      );
      assert.deepEqual(
        (await server.admin('GET', '/workspaces/apps/oauth-apps')).body.oauthApps.filter(
          (app: { clientId: string }) => app.clientId === created.body.clientId,
        ),
        [],
      );
      assertError(
        await server.admin('DELETE', `/workspaces/apps/oauth-apps/${created.body.clientId}`),
        404,
        'not_found',
      );
      assertError(await server.admin('GET', '/workspaces/no-such-ws/oauth-apps'), 404, 'not_found');
    });
  });

  it('no bad-input sample above made the server answer 500 (it still serves)', async () => {
    assert.equal((await server.admin('GET', '/workspaces')).status, 200);
    assert.equal((await server.request('GET', '/healthz')).status, 200);
  });
});

describe('admin API without AGENT_RUNS_ADMIN_TOKEN', () => {
  let database: TestDatabase;
  let service: Service;
  let baseUrl: string;

  before(async () => {
    database = await createTestDatabase('sqlite');
    const config = loadConfig({
      PORT: '0',
      DATABASE_URL: database.config.url,
      AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
    });
    assert.equal(config.adminToken, undefined);
    service = await createService(config, { logger: pino({ level: 'silent' }), dev: false });
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await service.close();
    await database.drop();
  });

  it('admin routes are absent: 404 not_found with or without a bearer token, and nothing is created', async () => {
    for (const headers of [{}, bearer('any-token-at-all-0000')]) {
      const list = await fetch(`${baseUrl}/admin/v1/workspaces`, { headers });
      assert.equal(list.status, 404);
      assert.equal(((await list.json()) as { error: string }).error, 'not_found');
      const create = await fetch(`${baseUrl}/admin/v1/workspaces`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ slug: 'sneaky' }),
      });
      assert.equal(create.status, 404);
      await create.body?.cancel();
    }
    assert.equal(await service.resources.repos.workspaces.count(), 0);
    assert.equal((await fetch(`${baseUrl}/healthz`)).status, 200, 'the rest of the server works');
  });
});
