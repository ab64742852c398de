import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { createOAuthFixture, obtainTokens, postForm, type OAuthFixture } from '../support/oauth-flow.ts';
import { TestLeftovers } from '../support/run-cleanup.ts';
import { bearer, startTestServer, type TestServer } from '../support/test-server.ts';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

async function apiKeyOf(server: TestServer, slug: string): Promise<string> {
  const created = await server.admin('POST', `/workspaces/${slug}/api-keys`, { name: 'cleanup' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.key;
}

async function agentIn(server: TestServer, slug: string, body: Record<string, unknown>): Promise<string> {
  const created = await server.admin('POST', `/workspaces/${slug}/agents`, body);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

/** A workspace's OAuth fixture with an API key, through which runs a test started are ended after it. */
interface RunWorkspace {
  server: TestServer;
  fixture: OAuthFixture;
  key: string;
  leftovers: TestLeftovers;
}

/** Starts a run with `credential` (tracked, so that it is ended after the test). */
async function startRun(at: RunWorkspace, credential: string, body: Record<string, unknown>) {
  const { server, fixture } = at;
  const response = await server.request('POST', `${fixture.ws}/agent-runs`, {
    body,
    headers: bearer(credential),
  });
  if (response.status === 202) {
    at.leftovers.trackRun({ server, ws: fixture.ws, runId: response.body.runId, headers: bearer(at.key) });
  }
  return response;
}

const ephemeral = { systemPrompt: 'You are terse.', prompt: 'hi' };

/** A new access token of the grant behind `refreshToken`. */
async function refresh(server: TestServer, fixture: OAuthFixture, refreshToken: string): Promise<string> {
  const response = await postForm(`${server.baseUrl}/oauth/token`, undefined, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: fixture.clientId,
    client_secret: fixture.clientSecret,
  });
  const body = (await response.json()) as { access_token: string };
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.access_token;
}

const models = (server: TestServer, fixture: OAuthFixture, token: string) =>
  server.request('GET', `${fixture.ws}/models`, { headers: bearer(token) });

describe('OAuth access tokens on workspace routes', () => {
  let server: TestServer;
  /** Workspace `at-main`: an app, a user, an API key (to end runs after each test) and three agents. */
  let main: RunWorkspace;
  let agentA: string;
  let agentB: string;
  let systemAgent: string;
  const leftovers = new TestLeftovers();

  before(async () => {
    server = await startTestServer({ dev: true });
    const fixture = await createOAuthFixture(server, 'at-main');
    main = { server, fixture, key: await apiKeyOf(server, 'at-main'), leftovers };
    agentA = await agentIn(server, 'at-main', { name: 'Agent A', systemPrompt: 'You are A.' });
    agentB = await agentIn(server, 'at-main', { name: 'Agent B', systemPrompt: 'You are B.' });
    systemAgent = await agentIn(server, 'at-main', { name: 'S', systemPrompt: 'You are S.', system: true });
  });
  afterEach(() => leftovers.cleanUp());
  after(() => server.close());

  it('an unknown access token is 401 Invalid access token', async () => {
    const response = await models(server, main.fixture, `svc_at_${'0'.repeat(40)}`);
    assert.equal(response.status, 401);
    assert.equal(response.body.error, 'Invalid access token');
  });

  it('an expired access token is 401 Invalid access token; a refresh replaces it', async () => {
    const tokens = await obtainTokens(server, main.fixture, { scope: 'models:read' });
    assert.equal((await models(server, main.fixture, tokens.access_token)).status, 200);
    const updated = await server.service.resources.storage.db
      .updateTable('oauth_access_tokens')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('token_hash', '=', sha256(tokens.access_token))
      .executeTakeFirst();
    assert.equal(Number(updated.numUpdatedRows), 1);

    const response = await models(server, main.fixture, tokens.access_token);
    assert.equal(response.status, 401);
    assert.equal(response.body.error, 'Invalid access token');
    assert.equal(response.body.code, 'unauthorized');
    assert.match(response.headers.get('www-authenticate') ?? '', /invalid_token/);
    const replaced = await refresh(server, main.fixture, tokens.refresh_token);
    assert.equal((await models(server, main.fixture, replaced)).status, 200);
  });

  it('a workspace without the OAuth-applications feature is 403 oauth_apps_plan; back on, the token works', async () => {
    const plan = await createOAuthFixture(server, 'at-plan');
    const tokens = await obtainTokens(server, plan, { scope: 'models:read' });
    assert.equal((await models(server, plan, tokens.access_token)).status, 200);

    const off = await server.admin('PATCH', '/workspaces/at-plan', { features: { oauthApps: false } });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    const refused = await models(server, plan, tokens.access_token);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, 'oauth_apps_plan');
    assert.match(refused.body.message, /OAuth-applications feature/);

    const on = await server.admin('PATCH', '/workspaces/at-plan', { features: { oauthApps: true } });
    assert.equal(on.status, 200);
    assert.equal((await models(server, plan, tokens.access_token)).status, 200);
  });

  it("a token of workspace A on workspace B's path is 404 with a hint naming A", async () => {
    assert.equal((await server.admin('POST', '/workspaces', { slug: 'at-other' })).status, 201);
    const tokens = await obtainTokens(server, main.fixture, { scope: 'models:read' });
    const mismatch = await server.request('GET', '/api/v1/workspaces/at-other/models', {
      headers: bearer(tokens.access_token),
    });
    assert.equal(mismatch.status, 404);
    assert.equal(mismatch.body.error, 'Workspace path mismatch');
    assert.match(mismatch.body.hint, /'at-main'/);
    assert.match(mismatch.body.hint, /\/api\/v1\/workspaces\/at-main/);

    const unknown = await server.request('GET', '/api/v1/workspaces/at-nowhere/models', {
      headers: bearer(tokens.access_token),
    });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, 'not_found');
    assert.match(unknown.body.hint, /'at-main'/);
  });

  it('agent allowlist: a token consented for [A] runs A; agent B and ephemeral runs are 403 forbidden', async () => {
    const tokens = await obtainTokens(server, main.fixture, { scope: 'runs:write', agentIds: [agentA] });
    const token = tokens.access_token;
    const ranA = await startRun(main, token, { agentId: agentA, prompt: 'hi' });
    assert.equal(ranA.status, 202, JSON.stringify(ranA.body));
    assert.ok(ranA.body.runId);

    const ranB = await startRun(main, token, { agentId: agentB, prompt: 'hi' });
    assert.equal(ranB.status, 403, JSON.stringify(ranB.body));
    assert.equal(ranB.body.error, 'forbidden');

    const ranEphemeral = await startRun(main, token, ephemeral);
    assert.equal(ranEphemeral.status, 403, JSON.stringify(ranEphemeral.body));
    assert.equal(ranEphemeral.body.error, 'forbidden');

    const refreshed = await refresh(server, main.fixture, tokens.refresh_token);
    const againB = await startRun(main, refreshed, { agentId: agentB, prompt: 'hi' });
    assert.equal(againB.status, 403, 'a refreshed token keeps the allowlist');
  });

  it('agent allowlist: a token consented for no agents runs any non-system agent and ephemeral runs', async () => {
    const { access_token: token } = await obtainTokens(server, main.fixture, { scope: 'runs:write' });
    for (const body of [{ agentId: agentA, prompt: 'hi' }, { agentId: agentB, prompt: 'hi' }, ephemeral]) {
      const response = await startRun(main, token, body);
      assert.equal(response.status, 202, `${JSON.stringify(body)}: ${JSON.stringify(response.body)}`);
    }
    const system = await startRun(main, token, { agentId: systemAgent, prompt: 'hi' });
    assert.equal(system.status, 403, 'a system agent is not among "every agent"');
    assert.equal(system.body.error, 'forbidden');
  });

  it('feedback given with an OAuth token has no author: reply-feedback lists it with authorApiKeyId null', async () => {
    const { access_token: token } = await obtainTokens(server, main.fixture, {
      scope: 'runs:write feedback:write feedback:read',
    });
    const run = await startRun(main, token, ephemeral);
    assert.equal(run.status, 202);
    const given = await server.request('POST', `${main.fixture.ws}/agent-runs/${run.body.runId}/feedback`, {
      body: { verdict: 'UP', explanation: 'helpful' },
      headers: bearer(token),
    });
    assert.equal(given.status, 201, JSON.stringify(given.body));
    assert.equal(given.body.agentRunId, run.body.runId);

    const listed = await server.request('GET', `${main.fixture.ws}/reply-feedback`, {
      headers: bearer(token),
    });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const entry = listed.body.feedback.find(
      (item: { agentRunId: string }) => item.agentRunId === run.body.runId,
    );
    assert.ok(entry, 'the feedback is listed');
    assert.equal(entry.verdict, 'UP');
    assert.equal(entry.explanation, 'helpful');
    assert.equal(entry.authorApiKeyId, null);
  });
});

describe('OAuth rate limits by workspace and grant', () => {
  const RUN_START_LIMIT = 20;
  let server: TestServer;
  let limited: RunWorkspace;
  const leftovers = new TestLeftovers();

  before(async () => {
    server = await startTestServer({ dev: true });
    const fixture = await createOAuthFixture(server, 'at-limits', {
      workspace: { rateLimits: { runStart: RUN_START_LIMIT } },
    });
    limited = { server, fixture, key: await apiKeyOf(server, 'at-limits'), leftovers };
  });
  afterEach(() => leftovers.cleanUp());
  after(() => server.close());

  /** Starts an ephemeral run and returns X-RateLimit-Remaining of its run-start bucket. */
  async function remainingAfterRun(credential: string): Promise<number> {
    const response = await startRun(limited, credential, ephemeral);
    assert.equal(response.status, 202, JSON.stringify(response.body));
    assert.equal(response.headers.get('x-ratelimit-bucket'), 'run_start');
    assert.equal(response.headers.get('x-ratelimit-limit'), String(RUN_START_LIMIT));
    return Number(response.headers.get('x-ratelimit-remaining'));
  }

  const consent = () => obtainTokens(server, limited.fixture, { scope: 'runs:write' });

  it("two access tokens of one grant (the second from refresh) share the grant's run-start bucket", async () => {
    const tokens = await consent();
    const refreshed = await refresh(server, limited.fixture, tokens.refresh_token);
    assert.notEqual(refreshed, tokens.access_token);
    assert.equal(await remainingAfterRun(tokens.access_token), RUN_START_LIMIT - 1);
    assert.equal(await remainingAfterRun(refreshed), RUN_START_LIMIT - 2);
    assert.equal(await remainingAfterRun(tokens.access_token), RUN_START_LIMIT - 3);
  });

  it('another consent is another grant: its tokens start a bucket of their own', async () => {
    const first = await consent();
    assert.equal(await remainingAfterRun(first.access_token), RUN_START_LIMIT - 1);
    assert.equal(await remainingAfterRun(first.access_token), RUN_START_LIMIT - 2);
    const second = await consent();
    assert.equal(await remainingAfterRun(second.access_token), RUN_START_LIMIT - 1);
    assert.equal(await remainingAfterRun(first.access_token), RUN_START_LIMIT - 3, 'the first goes on');
  });

  it("an API key's bucket is separate from the grants' buckets", async () => {
    const tokens = await consent();
    assert.equal(await remainingAfterRun(tokens.access_token), RUN_START_LIMIT - 1);
    const key = await apiKeyOf(server, 'at-limits');
    assert.equal(await remainingAfterRun(key), RUN_START_LIMIT - 1);
    assert.equal(await remainingAfterRun(tokens.access_token), RUN_START_LIMIT - 2);
    assert.equal(await remainingAfterRun(key), RUN_START_LIMIT - 2);
  });
});
