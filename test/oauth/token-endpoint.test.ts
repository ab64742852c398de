import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  createOAuthFixture,
  exchangeCode,
  obtainTokens,
  pkcePair,
  type OAuthFixture,
} from '../support/oauth-flow.ts';
import { bearer, startTestServer, type TestServer } from '../support/test-server.ts';
import {
  assertOAuthError,
  assertTokenRejected,
  basic,
  codeExchange,
  codeFor,
  credentialsOf,
  models,
  postTo,
  refresh,
  revoke,
  tokenPost,
  tokensFor,
} from './token-requests.ts';

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

  it('RFC 6749 §4.1.2: a reused code is invalid_grant and revokes the tokens issued from it', async () => {
    const { code, verifier } = await codeFor(server, app);
    const first = await exchangeCode(server, app, code, verifier);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal((await models(server, app, first.body.access_token)).status, 200);
    const refreshed = await refresh(server, app, first.body.refresh_token);
    assert.equal(refreshed.status, 200, 'the grant works before the code comes back');

    const reused = await exchangeCode(server, app, code, verifier);
    assert.equal(reused.status, 400, JSON.stringify(reused.body));
    assert.equal(reused.body.error, 'invalid_grant');
    assert.equal(reused.body.access_token, undefined);

    await assertTokenRejected(server, app, first.body.access_token);
    await assertTokenRejected(server, app, refreshed.body.access_token);
    assertOAuthError(await refresh(server, app, first.body.refresh_token), 400, 'invalid_grant');
    const third = await exchangeCode(server, app, code, verifier);
    assert.equal(third.body.error, 'invalid_grant', 'the code stays refused');
  });

  it('RFC 6749 §4.1.2: of two concurrent exchanges of one code, neither leaves a working token', async () => {
    const { code, verifier } = await codeFor(server, app);
    const answers = await Promise.all([
      exchangeCode(server, app, code, verifier),
      exchangeCode(server, app, code, verifier),
    ]);
    const issued = answers.filter((answer) => answer.status === 200);
    assert.ok(issued.length <= 1, `at most one exchange is answered with tokens: ${JSON.stringify(answers)}`);
    for (const refused of answers.filter((answer) => answer.status !== 200)) {
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error, 'invalid_grant');
    }
    for (const { body } of issued) {
      await assertTokenRejected(server, app, body.access_token);
      assertOAuthError(await refresh(server, app, body.refresh_token), 400, 'invalid_grant');
    }
  });

  it("a reused code presented by another app is refused and still revokes the first exchange's tokens", async () => {
    const { code, verifier } = await codeFor(server, app);
    const first = await exchangeCode(server, app, code, verifier);
    assert.equal(first.status, 200);
    const stolen = await exchangeCode(server, otherApp, code, verifier);
    assert.equal(stolen.status, 400);
    assert.equal(stolen.body.error, 'invalid_grant');
    await assertTokenRejected(server, app, first.body.access_token);
  });

  it("another app's code is invalid_grant", async () => {
    const { code, verifier } = await codeFor(server, app);
    const stolen = await exchangeCode(server, otherApp, code, verifier);
    assert.equal(stolen.status, 400);
    assert.equal(stolen.body.error, 'invalid_grant');
  });

  it("RFC 6749 §5.2: a redirect_uri other than the authorization request's is invalid_grant; a missing one invalid_request", async () => {
    const { code, verifier } = await codeFor(server, app);
    const differing = await tokenPost(server, {
      ...codeExchange(app, code, verifier),
      redirect_uri: 'http://127.0.0.1:9/elsewhere',
      ...credentialsOf(app),
    });
    assertOAuthError(differing, 400, 'invalid_grant');
    assert.match(differing.body.error_description, /redirect_uri/);

    const next = await codeFor(server, app);
    const { redirect_uri: _omitted, ...withoutRedirect } = codeExchange(app, next.code, next.verifier);
    const missing = await tokenPost(server, { ...withoutRedirect, ...credentialsOf(app) });
    assertOAuthError(missing, 400, 'invalid_request');
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

  it('authorization_code, refresh_token and client_credentials only: password is unauthorized_client, an unknown grant unsupported_grant_type', async () => {
    const attempts: Array<[Record<string, string>, string]> = [
      [{ grant_type: 'password', username: app.email, password: app.password }, 'unauthorized_client'],
      [{ grant_type: 'urn:example:no-such-grant' }, 'unsupported_grant_type'],
    ];
    for (const [fields, expected] of attempts) {
      const answer = await tokenPost(server, { ...fields, ...credentialsOf(app) });
      assertOAuthError(answer, 400, expected);
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

  it('revocation requires client authentication (RFC 6749 §5.2): 401 without a secret, 400 for a wrong one in the form; nothing is revoked', async () => {
    const tokens = await tokensFor(server, app);
    for (const fields of [
      { token: tokens.refresh_token },
      { token: tokens.refresh_token, client_id: app.clientId },
    ]) {
      const answer = await postTo(server, '/oauth/revoke', fields);
      assertOAuthError(answer, 401, 'invalid_client');
      assert.match(answer.headers.get('www-authenticate') ?? '', /^Basic realm="[^"]+"$/);
    }
    const wrongInForm = await postTo(server, '/oauth/revoke', {
      token: tokens.refresh_token,
      client_id: app.clientId,
      client_secret: 'wrong',
    });
    assertOAuthError(wrongInForm, 400, 'invalid_client');
    assert.equal(wrongInForm.headers.get('www-authenticate'), null);
    const wrongInBasic = await postTo(
      server,
      '/oauth/revoke',
      { token: tokens.refresh_token },
      basic(app.clientId, 'wrong'),
    );
    assertOAuthError(wrongInBasic, 401, 'invalid_client');
    assert.match(wrongInBasic.headers.get('www-authenticate') ?? '', /^Basic realm="[^"]+"$/);
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
