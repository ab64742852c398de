import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  consentByForm,
  createOAuthFixture,
  exchangeCode,
  obtainTokens,
  pkcePair,
  postForm,
  type OAuthFixture,
} from '../support/oauth-flow.ts';
import { bearer, startTestServer, type TestResponse, type TestServer } from '../support/test-server.ts';

type Fields = Record<string, string>;

/** A form post to the token or revocation endpoint; the answer's body parsed (`{}` when empty). */
async function postTo(
  server: TestServer,
  path: '/oauth/token' | '/oauth/revoke',
  fields: Fields,
  headers: Fields = {},
): Promise<TestResponse> {
  const response = await postForm(`${server.baseUrl}${path}`, undefined, fields, headers);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? {} : JSON.parse(text) };
}

/** `Authorization: Basic` with RFC 6749 §2.3.1 encoding (each part form-encoded, then base64). */
function basic(clientId: string, clientSecret: string): Fields {
  const pair = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`;
  return { authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
}

const tokenPost = (server: TestServer, fields: Fields, headers: Fields = {}) =>
  postTo(server, '/oauth/token', fields, headers);

const credentialsOf = (app: OAuthFixture) => ({ client_id: app.clientId, client_secret: app.clientSecret });

let people = 0;

/**
 * The fixture with a new end user of its workspace: sign-in is throttled to 10 attempts a minute per
 * account, so each consent signs in as someone new.
 */
async function newPerson(server: TestServer, fixture: OAuthFixture): Promise<OAuthFixture> {
  const email = `person-${++people}@${fixture.slug}.example`;
  const { password } = fixture;
  const user = await server.admin('POST', `/workspaces/${fixture.slug}/users`, { email, password });
  assert.equal(user.status, 201, JSON.stringify(user.body));
  return { ...fixture, email, userId: user.body.id };
}

/** A fresh authorization code of the fixture's app (consented by a new user) and its PKCE verifier. */
async function codeFor(server: TestServer, fixture: OAuthFixture, scope = 'models:read runs:write') {
  const { redirect, verifier } = await consentByForm(server, await newPerson(server, fixture), { scope });
  const code = redirect.searchParams.get('code');
  assert.ok(code, `a code in ${redirect.toString()}`);
  return { code, verifier };
}

const codeExchange = (fixture: OAuthFixture, code: string, verifier: string) => ({
  grant_type: 'authorization_code',
  code,
  redirect_uri: fixture.redirectUri,
  code_verifier: verifier,
});

const refresh = (server: TestServer, fixture: OAuthFixture, refreshToken: string, extra = {}) =>
  tokenPost(server, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    ...credentialsOf(fixture),
    ...extra,
  });

const revoke = (server: TestServer, fixture: OAuthFixture, token: string) =>
  postTo(server, '/oauth/revoke', { token, ...credentialsOf(fixture) });

/** Tokens of the fixture's app, consented by a new user. */
const tokensFor = async (server: TestServer, fixture: OAuthFixture, scope = 'models:read') =>
  obtainTokens(server, await newPerson(server, fixture), { scope });

/** A workspace route that needs models:read: 200 for a live token, 401 for a dead one. */
const models = (server: TestServer, fixture: OAuthFixture, token: string) =>
  server.request('GET', `${fixture.ws}/models`, { headers: bearer(token) });

async function assertTokenRejected(server: TestServer, fixture: OAuthFixture, token: string) {
  const response = await models(server, fixture, token);
  assert.equal(response.status, 401, `a dead token is refused: ${JSON.stringify(response.body)}`);
  assert.equal(response.body.error, 'Invalid access token');
}

function assertOAuthError(answer: TestResponse, status: number, error: string) {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.equal(answer.body.error, error);
  assert.equal(typeof answer.body.error_description, 'string');
}

describe('OAuth token endpoint: authorization code exchange', () => {
  let server: TestServer;
  let app: OAuthFixture;
  let otherApp: OAuthFixture;

  before(async () => {
    server = await startTestServer();
    app = await createOAuthFixture(server, 'te-code');
    const second = await server.admin('POST', '/workspaces/te-code/oauth-apps', {
      name: 'Other App',
      redirectUris: [app.redirectUri],
    });
    assert.equal(second.status, 201);
    otherApp = { ...app, clientId: second.body.clientId, clientSecret: second.body.clientSecret };
  });
  after(() => server.close());

  it('confidential clients: a missing client_secret (PKCE only) is 401 invalid_client', async () => {
    const { code, verifier } = await codeFor(server, app);
    const answer = await tokenPost(server, {
      ...codeExchange(app, code, verifier),
      client_id: app.clientId,
    });
    assertOAuthError(answer, 401, 'invalid_client');
    assert.match(answer.headers.get('www-authenticate') ?? '', /^Basic/);
  });

  it('a wrong client secret in Basic is 401 invalid_client with WWW-Authenticate (RFC 6749 §5.2 MUST)', async () => {
    const { code, verifier } = await codeFor(server, app);
    const answer = await tokenPost(
      server,
      codeExchange(app, code, verifier),
      basic(app.clientId, 'not-the-secret'),
    );
    assertOAuthError(answer, 401, 'invalid_client');
    assert.match(answer.headers.get('www-authenticate') ?? '', /^Basic/);
  });

  it('a wrong client secret in the body is invalid_client, 400 (RFC 6749 §5.2 allows 400 or 401)', async () => {
    const { code, verifier } = await codeFor(server, app);
    const answer = await tokenPost(server, {
      ...codeExchange(app, code, verifier),
      client_id: app.clientId,
      client_secret: 'not-the-secret',
    });
    assert.ok([400, 401].includes(answer.status), `status ${answer.status}`);
    assertOAuthError(answer, 400, 'invalid_client');
  });

  it('PKCE: a missing code_verifier is invalid_grant', async () => {
    const { code } = await codeFor(server, app);
    const { code_verifier: _omitted, ...fields } = codeExchange(app, code, 'unused');
    const answer = await tokenPost(server, { ...fields, ...credentialsOf(app) });
    assertOAuthError(answer, 400, 'invalid_grant');
  });

  it('PKCE: a wrong code_verifier is invalid_grant and consumes the code', async () => {
    const { code, verifier } = await codeFor(server, app);
    const wrong = await exchangeCode(server, app, code, pkcePair().verifier);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, 'invalid_grant');
    const retried = await exchangeCode(server, app, code, verifier);
    assert.equal(retried.status, 400, 'the right verifier comes too late: the code is spent');
    assert.equal(retried.body.error, 'invalid_grant');
  });

  it('a code is single-use: a reused code is invalid_grant', async () => {
    const { code, verifier } = await codeFor(server, app);
    assert.equal((await exchangeCode(server, app, code, verifier)).status, 200);
    const reused = await exchangeCode(server, app, code, verifier);
    assert.equal(reused.status, 400);
    assert.equal(reused.body.error, 'invalid_grant');
  });

  it("another app's code is invalid_grant", async () => {
    const { code, verifier } = await codeFor(server, app);
    const stolen = await exchangeCode(server, otherApp, code, verifier);
    assert.equal(stolen.status, 400);
    assert.equal(stolen.body.error, 'invalid_grant');
  });

  it('a redirect_uri that differs from the authorization request is refused', async () => {
    const { code, verifier } = await codeFor(server, app);
    const answer = await tokenPost(server, {
      ...codeExchange(app, code, verifier),
      redirect_uri: 'http://127.0.0.1:9/elsewhere',
      ...credentialsOf(app),
    });
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    // RFC 6749 §5.2 names invalid_grant for this; the library answers invalid_request.
    assert.ok(['invalid_grant', 'invalid_request'].includes(answer.body.error), answer.body.error);
    assert.equal(answer.body.error, 'invalid_request');
  });

  it('the token endpoint takes form bodies only: a JSON body is invalid_request', async () => {
    const { code, verifier } = await codeFor(server, app);
    for (const headers of [basic(app.clientId, app.clientSecret), {}]) {
      const response = await server.request('POST', '/oauth/token', {
        body: { ...codeExchange(app, code, verifier), ...credentialsOf(app) },
        headers,
      });
      assert.equal(response.status, 400, JSON.stringify(response.body));
      assert.equal(response.body.error, 'invalid_request');
    }
    assert.equal((await exchangeCode(server, app, code, verifier)).status, 200, 'the code was not spent');
  });

  it('only authorization_code and refresh_token: password and client_credentials are unauthorized_client', async () => {
    const attempts: Array<[Record<string, string>, string]> = [
      [{ grant_type: 'password', username: app.email, password: app.password }, 'unauthorized_client'],
      [{ grant_type: 'client_credentials', scope: 'models:read' }, 'unauthorized_client'],
      [{ grant_type: 'urn:example:no-such-grant' }, 'unsupported_grant_type'],
    ];
    for (const [fields, expected] of attempts) {
      const answer = await tokenPost(server, { ...fields, ...credentialsOf(app) });
      assert.equal(answer.status, 400, `${fields.grant_type}: ${JSON.stringify(answer.body)}`);
      assert.ok(['unauthorized_client', 'unsupported_grant_type'].includes(answer.body.error));
      assert.equal(answer.body.error, expected, fields.grant_type);
      assert.equal(answer.body.access_token, undefined);
    }
  });

  it('success: Bearer token_type, expires_in 3600, the scope, Cache-Control no-store', async () => {
    const { code, verifier } = await codeFor(server, app, 'models:read runs:read');
    const answer = await tokenPost(
      server,
      codeExchange(app, code, verifier),
      basic(app.clientId, app.clientSecret),
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.token_type, 'Bearer');
    assert.equal(answer.body.expires_in, 3600);
    assert.deepEqual(answer.body.scope.split(' ').sort(), ['models:read', 'runs:read']);
    assert.match(answer.body.access_token, /^svc_at_[A-Za-z0-9]+$/);
    assert.match(answer.body.refresh_token, /^svc_rt_[A-Za-z0-9]+$/);
    assert.match(answer.headers.get('cache-control') ?? '', /no-store/);
    assert.equal((await models(server, app, answer.body.access_token)).status, 200);
  });

  it('tokens are stored hashed: no row of oauth_access_tokens or oauth_grants holds a token string', async () => {
    const { code, verifier } = await codeFor(server, app);
    const exchanged = await exchangeCode(server, app, code, verifier);
    assert.equal(exchanged.status, 200);
    const refreshed = await refresh(server, app, exchanged.body.refresh_token);
    assert.equal(refreshed.status, 200);
    const secrets = [exchanged.body.access_token, exchanged.body.refresh_token, refreshed.body.access_token];

    const { db } = server.service.resources.storage;
    const tokens = await db.selectFrom('oauth_access_tokens').selectAll().execute();
    const grants = await db.selectFrom('oauth_grants').selectAll().execute();
    const codes = await db.selectFrom('oauth_authorization_codes').selectAll().execute();
    const stored = JSON.stringify([tokens, grants, codes]);
    for (const secret of [...secrets, code]) assert.ok(!stored.includes(secret), 'no plaintext secret');

    const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
    const tokenHashes = tokens.map((row) => row.token_hash);
    assert.ok(
      tokenHashes.includes(sha256(exchanged.body.access_token)),
      'the access token is kept as a hash',
    );
    assert.ok(tokenHashes.includes(sha256(refreshed.body.access_token)));
    assert.ok(grants.some((row) => row.refresh_token_hash === sha256(exchanged.body.refresh_token)));
  });
});

describe('OAuth token endpoint: refresh tokens', () => {
  let server: TestServer;
  let app: OAuthFixture;
  let otherApp: OAuthFixture;

  before(async () => {
    server = await startTestServer();
    app = await createOAuthFixture(server, 'te-refresh');
    otherApp = await createOAuthFixture(server, 'te-refresh-other');
  });
  after(() => server.close());

  it('refresh tokens do not rotate: the same refresh token comes back with a new access token', async () => {
    const tokens = await tokensFor(server, app);
    const refreshed = await refresh(server, app, tokens.refresh_token);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.equal(refreshed.body.refresh_token, tokens.refresh_token);
    assert.notEqual(refreshed.body.access_token, tokens.access_token);
    assert.equal(refreshed.body.token_type, 'Bearer');
    assert.equal(refreshed.body.expires_in, 3600);
    assert.equal(refreshed.body.scope, 'models:read');
    assert.match(refreshed.headers.get('cache-control') ?? '', /no-store/);
    assert.equal((await models(server, app, refreshed.body.access_token)).status, 200);
    assert.equal((await models(server, app, tokens.access_token)).status, 200, 'the earlier one lives on');
  });

  it('concurrent refreshes all succeed: 5 at once are all 200 with the same refresh token', async () => {
    const tokens = await tokensFor(server, app);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => refresh(server, app, tokens.refresh_token)),
    );
    for (const answer of answers) {
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.refresh_token, tokens.refresh_token);
    }
    const accessTokens = new Set(answers.map((answer) => answer.body.access_token));
    assert.equal(accessTokens.size, 5, 'five distinct access tokens');
    for (const token of accessTokens) assert.equal((await models(server, app, token)).status, 200);
  });

  it('a refresh may narrow the scope: the narrowed token gets insufficient_scope on runs:write routes', async () => {
    const tokens = await tokensFor(server, app, 'models:read runs:write');
    const narrowed = await refresh(server, app, tokens.refresh_token, { scope: 'models:read' });
    assert.equal(narrowed.status, 200, JSON.stringify(narrowed.body));
    assert.equal(narrowed.body.scope, 'models:read');
    const token = narrowed.body.access_token;
    assert.equal((await models(server, app, token)).status, 200);
    const run = await server.request('POST', `${app.ws}/agent-runs`, {
      body: { systemPrompt: 's', prompt: 'hi' },
      headers: bearer(token),
    });
    assert.equal(run.status, 403);
    assert.equal(run.body.error, 'insufficient_scope');
    assert.equal(run.body.required, 'runs:write');
    assert.match(run.headers.get('www-authenticate') ?? '', /insufficient_scope/);

    const full = await refresh(server, app, tokens.refresh_token);
    assert.equal(full.status, 200);
    assert.deepEqual(full.body.scope.split(' ').sort(), ['models:read', 'runs:write'], 'the grant is intact');
  });

  it('a refresh may not widen the scope: invalid_scope', async () => {
    const tokens = await tokensFor(server, app);
    const widened = await refresh(server, app, tokens.refresh_token, { scope: 'models:read runs:write' });
    assertOAuthError(widened, 400, 'invalid_scope');
    assert.equal(widened.body.access_token, undefined);
  });

  it("another app's credentials with this refresh token are invalid_grant", async () => {
    const tokens = await tokensFor(server, app);
    assertOAuthError(await refresh(server, otherApp, tokens.refresh_token), 400, 'invalid_grant');
    assert.equal((await refresh(server, app, tokens.refresh_token)).status, 200, 'the token still works');
  });
});

describe('OAuth token revocation (RFC 7009)', () => {
  let server: TestServer;
  let app: OAuthFixture;
  let otherApp: OAuthFixture;

  before(async () => {
    server = await startTestServer();
    app = await createOAuthFixture(server, 'te-revoke');
    otherApp = await createOAuthFixture(server, 'te-revoke-other');
  });
  after(() => server.close());

  it('revoking the refresh token ends the grant: refresh is invalid_grant, its access tokens 401', async () => {
    const tokens = await tokensFor(server, app);
    const second = await refresh(server, app, tokens.refresh_token);
    assert.equal(second.status, 200);
    const revoked = await revoke(server, app, tokens.refresh_token);
    assert.equal(revoked.status, 200);
    assert.match(revoked.headers.get('cache-control') ?? '', /no-store/);
    assertOAuthError(await refresh(server, app, tokens.refresh_token), 400, 'invalid_grant');
    await assertTokenRejected(server, app, tokens.access_token);
    await assertTokenRejected(server, app, second.body.access_token);
  });

  it('revoking an access token ends that token only: the refresh token still works', async () => {
    const tokens = await tokensFor(server, app);
    const sibling = await refresh(server, app, tokens.refresh_token);
    const revoked = await postTo(
      server,
      '/oauth/revoke',
      { token: tokens.access_token, token_type_hint: 'access_token' },
      basic(app.clientId, app.clientSecret),
    );
    assert.equal(revoked.status, 200);
    await assertTokenRejected(server, app, tokens.access_token);
    assert.equal((await models(server, app, sibling.body.access_token)).status, 200);
    const again = await refresh(server, app, tokens.refresh_token);
    assert.equal(again.status, 200);
    assert.equal((await models(server, app, again.body.access_token)).status, 200);
  });

  it("revocation with another app's credentials changes nothing and answers 200", async () => {
    const tokens = await tokensFor(server, app);
    assert.equal((await revoke(server, otherApp, tokens.refresh_token)).status, 200);
    assert.equal((await revoke(server, otherApp, tokens.access_token)).status, 200);
    assert.equal((await models(server, app, tokens.access_token)).status, 200);
    assert.equal((await refresh(server, app, tokens.refresh_token)).status, 200);
  });

  it('an unknown token is answered 200', async () => {
    for (const token of ['svc_rt_unknown0000000000', 'svc_at_unknown0000000000', 'anything']) {
      const answer = await revoke(server, app, token);
      assert.equal(answer.status, 200, token);
    }
  });

  it('revocation requires client authentication: 401 invalid_client without it', async () => {
    const tokens = await tokensFor(server, app);
    for (const fields of [
      { token: tokens.refresh_token },
      { token: tokens.refresh_token, client_id: app.clientId },
      { token: tokens.refresh_token, client_id: app.clientId, client_secret: 'wrong' },
    ]) {
      const answer = await postTo(server, '/oauth/revoke', fields);
      assertOAuthError(answer, 401, 'invalid_client');
      assert.match(answer.headers.get('www-authenticate') ?? '', /^Basic/);
    }
    assert.equal((await refresh(server, app, tokens.refresh_token)).status, 200, 'nothing was revoked');
  });
});

describe('OAuth access ends when the admin deletes the grant, the app or the user', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  /** A workspace of its own (one app, one user, one grant) and the grant's tokens. */
  const remove = async (path: string) => assert.equal((await server.admin('DELETE', path)).status, 204);

  async function grantIn(slug: string) {
    const fixture = await createOAuthFixture(server, slug);
    const tokens = await obtainTokens(server, fixture, { scope: 'models:read' });
    assert.equal((await models(server, fixture, tokens.access_token)).status, 200);
    return { fixture, tokens };
  }

  it('DELETE …/oauth-grants/{id} ends the grant: refresh fails, the access token is 401', async () => {
    const { fixture, tokens } = await grantIn('te-admin-grant');
    const listed = await server.admin('GET', `/workspaces/${fixture.slug}/oauth-grants`);
    assert.equal(listed.status, 200);
    assert.equal(listed.body.oauthGrants.length, 1);
    const [grant] = listed.body.oauthGrants;
    assert.equal(grant.appId, fixture.clientId);
    assert.equal(grant.userId, fixture.userId);
    await remove(`/workspaces/${fixture.slug}/oauth-grants/${grant.id}`);
    assertOAuthError(await refresh(server, fixture, tokens.refresh_token), 400, 'invalid_grant');
    await assertTokenRejected(server, fixture, tokens.access_token);
    const after = await server.admin('GET', `/workspaces/${fixture.slug}/oauth-grants`);
    assert.deepEqual(after.body.oauthGrants, []);
  });

  it('deleting the app ends its grants: refresh fails (the client is gone), the access token is 401', async () => {
    const { fixture, tokens } = await grantIn('te-admin-app');
    await remove(`/workspaces/${fixture.slug}/oauth-apps/${fixture.clientId}`);
    const refused = await refresh(server, fixture, tokens.refresh_token);
    assert.ok(refused.status === 400 || refused.status === 401, `status ${refused.status}`);
    assert.equal(refused.body.error, 'invalid_client');
    await assertTokenRejected(server, fixture, tokens.access_token);
  });

  it("deleting the user ends the user's grants: refresh is invalid_grant, the access token is 401", async () => {
    const { fixture, tokens } = await grantIn('te-admin-user');
    await remove(`/workspaces/${fixture.slug}/users/${fixture.userId}`);
    assertOAuthError(await refresh(server, fixture, tokens.refresh_token), 400, 'invalid_grant');
    await assertTokenRejected(server, fixture, tokens.access_token);
  });
});
