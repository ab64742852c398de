import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TOKEN_REQUESTS_PER_CLIENT } from '../../src/http/oauth/token-rate-limit.ts';
import { createOAuthFixture, obtainTokens, type OAuthFixture } from '../support/oauth-flow.ts';
import { startTestServer, type TestResponse, type TestServer } from '../support/test-server.ts';
import { credentialsOf, refresh, tokenPost } from './token-requests.ts';

/** A token request the client is authenticated for and the grant refuses: it counts, and costs little. */
const unknownRefresh = (app: OAuthFixture) => ({
  grant_type: 'refresh_token',
  refresh_token: 'svc_rt_unknown00000000000000000000',
  ...credentialsOf(app),
});

const remainingOf = (answer: TestResponse) => Number(answer.headers.get('x-ratelimit-remaining'));

describe(`the token endpoint's own limit: ${TOKEN_REQUESTS_PER_CLIENT} requests a minute per client`, () => {
  let server: TestServer;
  let app: OAuthFixture;
  let sibling: OAuthFixture;

  before(async () => {
    server = await startTestServer();
    app = await createOAuthFixture(server, 'token-limit');
    const second = await server.admin('POST', '/workspaces/token-limit/oauth-apps', {
      name: 'Sibling App',
      redirectUris: [app.redirectUri],
    });
    assert.equal(second.status, 201, JSON.stringify(second.body));
    sibling = { ...app, clientId: second.body.clientId, clientSecret: second.body.clientSecret };
  });
  after(() => server.close());

  it('counts each authenticated request with X-RateLimit-* headers; past the limit 429 rate_limit_exceeded with Retry-After; other clients are unaffected', async () => {
    const tokens = await obtainTokens(server, app, { scope: 'models:read' });

    const first = await tokenPost(server, unknownRefresh(app));
    assert.equal(first.body.error, 'invalid_grant');
    assert.equal(first.headers.get('x-ratelimit-limit'), String(TOKEN_REQUESTS_PER_CLIENT));
    assert.equal(first.headers.get('x-ratelimit-bucket'), 'oauth_token');
    assert.match(first.headers.get('x-ratelimit-reset') ?? '', /^\d+$/);
    const left = remainingOf(first);
    assert.ok(left < TOKEN_REQUESTS_PER_CLIENT, `the request was counted: ${left} left`);

    // Failed client authentication is answered before metering: it creates no counter and spends none.
    const wrongSecret = await tokenPost(server, { ...unknownRefresh(app), client_secret: 'not-the-secret' });
    const unknownClient = await tokenPost(server, {
      ...unknownRefresh(app),
      client_id: 'app_unknown000000000000000',
    });
    for (const refused of [wrongSecret, unknownClient]) {
      assert.equal(refused.body.error, 'invalid_client');
      assert.equal(refused.headers.get('x-ratelimit-limit'), null, 'not metered');
    }
    const second = await tokenPost(server, unknownRefresh(app));
    assert.equal(remainingOf(second), left - 1, 'the failed authentications spent nothing');

    let remaining = remainingOf(second);
    while (remaining > 0) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(20, remaining) }, () => tokenPost(server, unknownRefresh(app))),
      );
      for (const answer of batch) assert.equal(answer.status, 400, JSON.stringify(answer.body));
      remaining = Math.min(...batch.map(remainingOf));
    }

    const limited = await refresh(server, app, tokens.refresh_token);
    assert.equal(limited.status, 429, JSON.stringify(limited.body));
    assert.equal(limited.body.error, 'rate_limit_exceeded');
    assert.equal(typeof limited.body.error_description, 'string');
    assert.equal(limited.body.access_token, undefined, 'a refused request issues nothing');
    assert.match(limited.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');
    assert.equal(limited.headers.get('x-ratelimit-bucket'), 'oauth_token');
    assert.match(limited.headers.get('cache-control') ?? '', /no-store/);

    const clientCredentials = await tokenPost(server, {
      grant_type: 'client_credentials',
      scope: 'models:read',
      ...credentialsOf(app),
    });
    assert.equal(clientCredentials.status, 429, 'every grant type draws from the same allowance');

    const other = await tokenPost(server, {
      grant_type: 'client_credentials',
      scope: 'models:read',
      ...credentialsOf(sibling),
    });
    assert.equal(
      other.status,
      200,
      `another app of the workspace has its own: ${JSON.stringify(other.body)}`,
    );
    assert.equal(remainingOf(other), TOKEN_REQUESTS_PER_CLIENT - 1);
  });
});
