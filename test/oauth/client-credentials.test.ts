import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { isTerminalEventType } from '../../src/domain/run-events.ts';
import { createOAuthFixture, type OAuthFixture } from '../support/oauth-flow.ts';
import { TestLeftovers } from '../support/run-cleanup.ts';
import { readAll } from '../support/sse-client.ts';
import { bearer, startTestServer, type TestServer } from '../support/test-server.ts';
import {
  assertOAuthError,
  assertTokenRejected,
  basic,
  credentialsOf,
  revoke,
  tokenPost,
} from './token-requests.ts';

/** `grant_type=client_credentials` with the app's secret in the form (or by HTTP Basic). */
const clientCredentials = (
  server: TestServer,
  app: OAuthFixture,
  scope: string | undefined,
  via: 'form' | 'basic' = 'form',
) =>
  tokenPost(
    server,
    {
      grant_type: 'client_credentials',
      ...(scope !== undefined && { scope }),
      ...(via === 'form' && credentialsOf(app)),
    },
    via === 'basic' ? basic(app.clientId, app.clientSecret) : {},
  );

async function agentIn(server: TestServer, slug: string, body: Record<string, unknown>): Promise<string> {
  const created = await server.admin('POST', `/workspaces/${slug}/agents`, body);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

describe('the client_credentials grant (ruling): an svc_at_ token of the app itself', () => {
  let server: TestServer;
  let app: OAuthFixture;
  let apiKey: string;
  let agent: string;
  let systemAgent: string;
  const leftovers = new TestLeftovers();

  before(async () => {
    server = await startTestServer({ dev: true });
    app = await createOAuthFixture(server, 'cc-main');
    const key = await server.admin('POST', '/workspaces/cc-main/api-keys', { name: 'cleanup' });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    apiKey = key.body.key;
    agent = await agentIn(server, 'cc-main', { name: 'Helper', systemPrompt: 'You help.' });
    systemAgent = await agentIn(server, 'cc-main', { name: 'S', systemPrompt: 'You are S.', system: true });
  });
  afterEach(() => leftovers.cleanUp());
  after(() => server.close());

  /** Starts a run with `token`, tracked so that it is ended after the test. */
  async function startRun(token: string, body: Record<string, unknown>) {
    const response = await server.request('POST', `${app.ws}/agent-runs`, { body, headers: bearer(token) });
    if (response.status === 202) {
      leftovers.trackRun({ server, ws: app.ws, runId: response.body.runId, headers: bearer(apiKey) });
    }
    return response;
  }

  for (const via of ['form', 'basic'] as const) {
    it(`with the secret (${via === 'form' ? 'client_secret_post' : 'client_secret_basic'}): svc_at_, Bearer, 3600 s, no refresh token, the scopes minus svc.identity:read`, async () => {
      const answer = await clientCredentials(server, app, 'runs:write svc.identity:read models:read', via);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.match(answer.body.access_token, /^svc_at_[A-Za-z0-9]{40}$/);
      assert.equal(answer.body.token_type, 'Bearer');
      assert.equal(answer.body.expires_in, 3600);
      assert.equal(answer.body.refresh_token, undefined, 'no refresh token');
      assert.deepEqual(answer.body.scope.split(' ').sort(), ['models:read', 'runs:write']);
      assert.match(answer.headers.get('cache-control') ?? '', /no-store/);
      const models = await server.request('GET', `${app.ws}/models`, {
        headers: bearer(answer.body.access_token),
      });
      assert.equal(models.status, 200, JSON.stringify(models.body));
    });
  }

  it('the token starts a run and follows it to its end; the run is not tied to any end user', async () => {
    const { body } = await clientCredentials(server, app, 'runs:read runs:write');
    const token = body.access_token;
    const created = await startRun(token, { systemPrompt: 'You are terse.', prompt: 'hi' });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const frames = await readAll(`${server.baseUrl}${created.body.streamUrl}`, bearer(token));
    assert.ok(isTerminalEventType(frames.at(-1)?.data.type ?? ''), 'the stream ends with a terminal event');
    assert.equal(frames.at(-1)?.data.type, 'result', 'the run completed');

    const grants = await server.admin('GET', '/workspaces/cc-main/oauth-grants');
    assert.deepEqual(grants.body.oauthGrants, [], 'no end user consented: there is no grant');
  });

  it('every non-system agent: a stored agent runs, a system agent is 403 forbidden', async () => {
    const { body } = await clientCredentials(server, app, 'runs:write');
    const ran = await startRun(body.access_token, { agentId: agent, prompt: 'hi' });
    assert.equal(ran.status, 202, JSON.stringify(ran.body));
    const system = await startRun(body.access_token, { agentId: systemAgent, prompt: 'hi' });
    assert.equal(system.status, 403, JSON.stringify(system.body));
    assert.equal(system.body.error, 'forbidden');
  });

  it('no end user: svc.identity:read is never granted, so userinfo is 403 insufficient_scope', async () => {
    const { body } = await clientCredentials(server, app, 'models:read svc.identity:read');
    assert.equal(body.scope, 'models:read');
    const me = await server.request('GET', '/api/oauth/userinfo', { headers: bearer(body.access_token) });
    assert.equal(me.status, 403, JSON.stringify(me.body));
    assert.equal(me.body.error, 'insufficient_scope');
    assert.equal(me.body.required, 'svc.identity:read');
  });

  it('invalid_scope without a scope, with svc.identity:read alone, or with an unknown scope', async () => {
    for (const scope of [undefined, 'svc.identity:read', 'models:read no:such-scope']) {
      const answer = await clientCredentials(server, app, scope);
      assertOAuthError(answer, 400, 'invalid_scope');
      assert.equal(answer.body.access_token, undefined, String(scope));
    }
  });

  it('a wrong secret is invalid_client and issues nothing', async () => {
    const answer = await clientCredentials(server, { ...app, clientSecret: 'not-the-secret' }, 'models:read');
    assertOAuthError(answer, 400, 'invalid_client');
  });

  it('RFC 7009: revoking the access token ends it; so does deleting the app', async () => {
    const revoked = await clientCredentials(server, app, 'models:read');
    assert.equal((await revoke(server, app, revoked.body.access_token)).status, 200);
    await assertTokenRejected(server, app, revoked.body.access_token);

    const doomed = await createOAuthFixture(server, 'cc-deleted');
    const { body } = await clientCredentials(server, doomed, 'models:read');
    const live = await server.request('GET', `${doomed.ws}/models`, { headers: bearer(body.access_token) });
    assert.equal(live.status, 200);
    const deleted = await server.admin('DELETE', `/workspaces/cc-deleted/oauth-apps/${doomed.clientId}`);
    assert.equal(deleted.status, 204);
    await assertTokenRejected(server, doomed, body.access_token);
  });

  it('a workspace whose plan lacks OAuth applications: unauthorized_client', async () => {
    const plan = await createOAuthFixture(server, 'cc-plan', {
      workspace: { features: { oauthApps: false } },
    });
    const answer = await clientCredentials(server, plan, 'models:read');
    assertOAuthError(answer, 400, 'unauthorized_client');
  });

  it('RFC 8414: the metadata advertises client_credentials', async () => {
    const metadata = await server.request('GET', '/.well-known/oauth-authorization-server');
    assert.ok(metadata.body.grant_types_supported.includes('client_credentials'));
  });
});
