import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, createWorkspaceWithKey, startTestServer, type TestServer } from '../support/test-server.ts';

describe('public authentication on workspace routes', () => {
  let server: TestServer;
  let acme: Awaited<ReturnType<typeof createWorkspaceWithKey>>;

  before(async () => {
    server = await startTestServer();
    acme = await createWorkspaceWithKey(server, 'acme');
    await createWorkspaceWithKey(server, 'other');
  });
  after(() => server.close());

  it('accepts an API key as Authorization: Bearer', async () => {
    const response = await server.request('GET', `${acme.ws}/models`, { headers: bearer(acme.key) });
    assert.equal(response.status, 200);
  });

  it('accepts an API key as X-API-Key, equivalently', async () => {
    const response = await server.request('GET', `${acme.ws}/models`, { headers: { 'x-api-key': acme.key } });
    assert.equal(response.status, 200);
  });

  it('a missing credential answers 401 { error: "Unauthorized", message }', async () => {
    const response = await server.request('GET', `${acme.ws}/models`);
    assert.equal(response.status, 401);
    assert.equal(response.body.error, 'Unauthorized');
    assert.equal(typeof response.body.message, 'string');
  });

  it('an unknown svc_ key answers 401 with an invalid-credential error text', async () => {
    const response = await server.request('GET', `${acme.ws}/models`, {
      headers: bearer('svc_doesnotexist000000'),
    });
    assert.equal(response.status, 401);
    assert.equal(response.body.error, 'Invalid API key');
  });

  it('a value without the svc_ prefix matches no record: 401', async () => {
    const response = await server.request('GET', `${acme.ws}/models`, { headers: bearer('sk-not-ours') });
    assert.equal(response.status, 401);
    assert.equal(typeof response.body.error, 'string');
  });

  it('an svc_at_ OAuth token answers 401 until OAuth tokens are issued', async () => {
    const response = await server.request('GET', `${acme.ws}/models`, {
      headers: bearer('svc_at_sometoken'),
    });
    assert.equal(response.status, 401);
    assert.equal(response.body.error, 'Invalid access token');
  });

  it('a revoked key answers 401', async () => {
    const doomed = await server.admin('POST', '/workspaces/acme/api-keys', { name: 'doomed' });
    assert.equal(
      (await server.request('GET', `${acme.ws}/models`, { headers: bearer(doomed.body.key) })).status,
      200,
    );
    assert.equal((await server.admin('DELETE', `/workspaces/acme/api-keys/${doomed.body.id}`)).status, 204);
    const response = await server.request('GET', `${acme.ws}/models`, { headers: bearer(doomed.body.key) });
    assert.equal(response.status, 401);
    assert.equal(response.body.error, 'Invalid API key');
  });

  it('an expired key answers 401', async () => {
    const expiring = await server.admin('POST', '/workspaces/acme/api-keys', {
      expiresAt: '2020-01-01T00:00:00Z',
    });
    assert.equal(expiring.status, 201);
    const response = await server.request('GET', `${acme.ws}/models`, { headers: bearer(expiring.body.key) });
    assert.equal(response.status, 401);
  });

  it('a key with the wrong usage answers 403 { error, hint }', async () => {
    const internal = await server.admin('POST', '/workspaces/acme/api-keys', { usage: 'internal' });
    const response = await server.request('GET', `${acme.ws}/models`, { headers: bearer(internal.body.key) });
    assert.equal(response.status, 403);
    assert.equal(typeof response.body.error, 'string');
    assert.match(response.body.hint, /developer_api/);
  });

  it("a slug that is not the credential's workspace answers 404 { error, hint } naming the right slug", async () => {
    const response = await server.request('GET', '/api/v1/workspaces/other/models', {
      headers: bearer(acme.key),
    });
    assert.equal(response.status, 404);
    assert.equal(response.body.error, 'Workspace path mismatch');
    assert.match(response.body.hint, /'acme'/);
    assert.match(response.body.hint, /\/api\/v1\/workspaces\/acme/);
  });

  it('an unknown workspace answers 404 not_found', async () => {
    const response = await server.request('GET', '/api/v1/workspaces/nowhere/models', {
      headers: bearer(acme.key),
    });
    assert.equal(response.status, 404);
    assert.equal(response.body.error, 'not_found');
    assert.match(response.body.hint, /acme/);
  });

  it('a plan without the API-keys feature answers 403 api_keys_plan with an error text', async () => {
    const basic = await createWorkspaceWithKey(server, 'basic', { features: { apiKeys: false } });
    const response = await server.request('GET', `${basic.ws}/models`, { headers: bearer(basic.key) });
    assert.equal(response.status, 403);
    assert.equal(response.body.error, 'api_keys_plan');
    assert.match(response.body.message, /API-keys feature/);
  });

  it('a key records when it was last used', async () => {
    const fresh = await server.admin('POST', '/workspaces/acme/api-keys', { name: 'tracked' });
    await server.request('GET', `${acme.ws}/models`, { headers: bearer(fresh.body.key) });
    const listed = await server.admin('GET', '/workspaces/acme/api-keys');
    const tracked = listed.body.apiKeys.find((key: { id: string }) => key.id === fresh.body.id);
    assert.ok(tracked.lastUsedAt, 'lastUsedAt is set after a request');
  });
});
