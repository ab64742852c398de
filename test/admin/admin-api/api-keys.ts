import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { bearer, createWorkspaceWithKey, type TestServer } from '../../support/test-server.ts';
import { everyStoredValue, assertError, assertInvalid, ULID, UNKNOWN_ID } from '../admin-support.ts';

/** The admin API's api-keys cases, on the server of admin-api.test.ts. */
export function apiKeysCases(serverOf: () => TestServer): void {
  describe('api-keys', () => {
    let server: TestServer;
    before(() => {
      server = serverOf();
    });

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
}
