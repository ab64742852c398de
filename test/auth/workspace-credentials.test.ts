import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashApiKey } from '../../src/auth/api-key-secret.ts';
import { secretMatches } from '../../src/auth/oauth/token-secrets.ts';
import { verifyPassword } from '../../src/auth/password-hash.ts';
import { WorkspaceCredentials } from '../../src/auth/workspace-credentials.ts';
import { InvalidRequestError } from '../../src/domain/errors.ts';
import type { Workspace } from '../../src/domain/workspace.ts';
import { createRepositories, type Repositories } from '../../src/storage/repositories/index.ts';
import { ENGINES, openTestStorage } from '../support/engines.ts';

for (const engine of ENGINES) {
  describe(`Workspace credentials on ${engine}`, () => {
    let storage: Awaited<ReturnType<typeof openTestStorage>>;
    let repos: Repositories;
    let credentials: WorkspaceCredentials;
    let workspace: Workspace;

    before(async () => {
      storage = await openTestStorage(engine);
      repos = createRepositories(storage.db);
      credentials = new WorkspaceCredentials(repos);
      workspace = await repos.workspaces.create({
        slug: 'credentials',
        name: 'Credentials',
        features: { apiKeys: true, oauthApps: true },
        rateLimits: {},
        maxConcurrentRuns: 10,
      });
    });
    after(() => storage.drop());

    it('an API key is returned once and stored only as its hash and display prefix', async () => {
      const { apiKey, key } = await credentials.createApiKey(workspace, { name: 'ci' });
      assert.match(key, /^svc_[0-9A-Za-z]{40}$/);
      assert.equal(apiKey.keyPrefix, key.slice(0, 10));
      assert.equal(JSON.stringify(apiKey).includes(key), false, 'the stored key does not hold the secret');
      const found = await repos.apiKeys.findByHash(hashApiKey(key));
      assert.equal(found?.apiKey.id, apiKey.id);
      assert.deepEqual(
        { name: apiKey.name, usage: apiKey.usage, agentIds: apiKey.agentIds, expiresAt: apiKey.expiresAt },
        { name: 'ci', usage: 'developer_api', agentIds: [], expiresAt: null },
      );
    });

    it('an API key naming an agent the workspace does not have is refused, and none is stored', async () => {
      const before = await repos.apiKeys.listByWorkspace(workspace.id);
      await assert.rejects(
        credentials.createApiKey(workspace, { agentIds: ['agent_unknown'] }),
        (error: unknown) =>
          error instanceof InvalidRequestError &&
          error.message === "agentIds: no agent 'agent_unknown' in workspace 'credentials'",
      );
      assert.equal((await repos.apiKeys.listByWorkspace(workspace.id)).length, before.length);
    });

    it('an expiry in any offset is stored in UTC', async () => {
      const { apiKey } = await credentials.createApiKey(workspace, {
        expiresAt: '2030-01-01T02:00:00+02:00',
      });
      assert.equal(apiKey.expiresAt, '2030-01-01T00:00:00.000Z');
    });

    it("a user's password is stored as a hash that verifies it", async () => {
      const user = await credentials.createUser(workspace, {
        email: 'Ada@Example.com',
        password: 'correct horse',
      });
      const found = await repos.users.findCredentials(workspace.id, 'ada@example.com');
      assert.equal(found?.user.id, user.id);
      assert.notEqual(found?.passwordHash, 'correct horse');
      assert.equal(await verifyPassword('correct horse', found?.passwordHash ?? ''), true);
      assert.equal(await verifyPassword('wrong horse', found?.passwordHash ?? ''), false);
    });

    it("an OAuth app's client secret is returned once and stored only as its hash", async () => {
      const { oauthApp, clientSecret } = await credentials.createOAuthApp(workspace, {
        name: 'Dashboard',
        redirectUris: ['https://app.example/callback'],
      });
      const client = await repos.oauth.findClient(oauthApp.id);
      assert.ok(client);
      assert.notEqual(client.clientSecretHash, clientSecret);
      assert.equal(secretMatches(clientSecret, client.clientSecretHash), true);
      assert.deepEqual(client.app.redirectUris, ['https://app.example/callback']);
    });
  });
}
