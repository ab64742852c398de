import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOAuthFixture } from '../support/oauth-flow.ts';
import { bearer, createWorkspaceWithKey, startTestServer, type TestServer } from '../support/test-server.ts';
import { credentialsOf, tokenPost } from '../oauth/token-requests.ts';

describe('webhook endpoints (extensions §7): API keys only', () => {
  let server: TestServer;
  let ws: string;
  let headers: Record<string, string>;
  const call = (method: string, path: string, body?: unknown, as = headers) =>
    server.request(method, `${ws}${path}`, { headers: as, ...(body !== undefined && { body }) });

  before(async () => {
    server = await startTestServer({ env: { AGENT_RUNS_FETCH_ALLOW: '127.0.0.0/8' } });
    const workspace = await createWorkspaceWithKey(server, 'hooks');
    ws = workspace.ws;
    headers = bearer(workspace.key);
  });
  after(() => server.close());

  it('create answers 201 with a whsec_ secret of 32 bytes shown only there; events default to the terminal ones', async () => {
    const created = await call('POST', '/webhooks', { url: 'https://example.com/hook', description: 'ops' });
    assert.equal(created.status, 201);
    assert.match(created.body.id, /^wh_/);
    assert.equal(created.body.url, 'https://example.com/hook');
    assert.deepEqual(created.body.events, ['run.succeeded', 'run.failed', 'run.cancelled']);
    assert.equal(created.body.enabled, true);
    assert.match(created.body.secret, /^whsec_/);
    assert.equal(Buffer.from(created.body.secret.slice(6), 'base64').length, 32);
    const read = await call('GET', `/webhooks/${created.body.id}`);
    assert.equal(read.status, 200);
    assert.equal(read.body.secret, undefined);
    assert.equal(read.body.description, 'ops');
    const listed = await call('GET', '/webhooks');
    assert.ok(
      listed.body.webhooks.some(
        (hook: { id: string; secret?: string }) => hook.id === created.body.id && hook.secret === undefined,
      ),
    );
  });

  it('PATCH changes url, events, description and enabled; DELETE answers 204 and the endpoint is gone', async () => {
    const { body } = await call('POST', '/webhooks', { url: 'https://example.com/a' });
    const patched = await call('PATCH', `/webhooks/${body.id}`, {
      url: 'http://127.0.0.1:8080/b',
      events: ['run.waiting', 'run.failed'],
      description: null,
      enabled: false,
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.url, 'http://127.0.0.1:8080/b');
    assert.deepEqual(patched.body.events, ['run.waiting', 'run.failed']);
    assert.equal(patched.body.enabled, false);
    assert.equal((await call('DELETE', `/webhooks/${body.id}`)).status, 204);
    assert.equal((await call('GET', `/webhooks/${body.id}`)).status, 404);
  });

  it('400 invalid_request: an unknown event, no event, a non-URL, ftp:, http: to an address AGENT_RUNS_FETCH_ALLOW does not allow, an unknown field', async () => {
    for (const body of [
      { url: 'https://example.com/h', events: ['run.started'] },
      { url: 'https://example.com/h', events: [] },
      { url: 'not a url' },
      { url: 'ftp://example.com/h' },
      { url: 'http://93.184.215.14/h' },
      { url: 'http://10.0.0.1/h' },
      { url: 'https://example.com/h', secret: 'mine' },
    ]) {
      const answer = await call('POST', '/webhooks', body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body.error, 'invalid_request');
      assert.equal(typeof answer.body.message, 'string');
    }
    const { body } = await call('POST', '/webhooks', { url: 'https://example.com/h' });
    const patched = await call('PATCH', `/webhooks/${body.id}`, { events: ['run.nope'] });
    assert.equal(patched.status, 400);
  });

  it('404 for ids unknown in the workspace, on every route, and for another workspace’s endpoint', async () => {
    const other = await createWorkspaceWithKey(server, 'hooks-other');
    const theirs = await server.request('POST', `${other.ws}/webhooks`, {
      headers: bearer(other.key),
      body: { url: 'https://example.com/theirs' },
    });
    assert.equal(theirs.status, 201);
    for (const id of ['wh_unknown', theirs.body.id]) {
      assert.equal((await call('GET', `/webhooks/${id}`)).status, 404);
      assert.equal((await call('PATCH', `/webhooks/${id}`, { enabled: false })).status, 404);
      assert.equal((await call('DELETE', `/webhooks/${id}`)).status, 404);
      assert.equal((await call('GET', `/webhooks/${id}/deliveries`)).status, 404);
      assert.equal((await call('POST', `/webhooks/${id}/deliveries/msg_unknown/retry`)).status, 404);
    }
    const { body } = await call('POST', '/webhooks', { url: 'https://example.com/h' });
    assert.equal((await call('POST', `/webhooks/${body.id}/deliveries/msg_unknown/retry`)).status, 404);
    assert.equal((await call('GET', `/webhooks/${body.id}/deliveries?limit=0`)).status, 400);
  });

  it('an OAuth access token is refused: 403 { error: "insufficient_scope", required: "api_key" }', async () => {
    const app = await createOAuthFixture(server, 'hooks-oauth');
    const token = await tokenPost(server, {
      grant_type: 'client_credentials',
      scope: 'runs:write runs:read',
      ...credentialsOf(app),
    });
    assert.equal(token.status, 200, JSON.stringify(token.body));
    const asToken = bearer(token.body.access_token);
    for (const [method, path, body] of [
      ['POST', '/webhooks', { url: 'https://example.com/h' }],
      ['GET', '/webhooks', undefined],
    ] as const) {
      const answer = await server.request(method, `${app.ws}${path}`, {
        headers: asToken,
        ...(body !== undefined && { body }),
      });
      assert.equal(answer.status, 403);
      assert.equal(answer.body.error, 'insufficient_scope');
      assert.equal(answer.body.required, 'api_key');
    }
  });
});
