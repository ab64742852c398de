import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as client from 'openid-client';
import { consentAt, createOAuthFixture, type OAuthFixture } from '../support/oauth-flow.ts';
import { readAll } from '../support/sse-client.ts';
import { bearer, startTestServer, type TestServer } from '../support/test-server.ts';

/** What the integrating app asks for. */
const SCOPE = 'models:read runs:read runs:write svc.identity:read';

type ClientAuthentication = 'client_secret_post' | 'client_secret_basic';

/** The app's configuration, discovered from the server's RFC 8414 metadata (plain http on loopback). */
function discover(
  server: TestServer,
  fixture: OAuthFixture,
  authentication: ClientAuthentication = 'client_secret_post',
): Promise<client.Configuration> {
  const clientAuth =
    authentication === 'client_secret_basic'
      ? client.ClientSecretBasic(fixture.clientSecret)
      : client.ClientSecretPost(fixture.clientSecret);
  return client.discovery(new URL(server.baseUrl), fixture.clientId, undefined, clientAuth, {
    algorithm: 'oauth2',
    execute: [client.allowInsecureRequests],
  });
}

/** The app's whole authorization-code flow: PKCE S256 and state, the browser's consent, the code exchanged. */
async function authorize(config: client.Configuration, fixture: OAuthFixture) {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const authorizationUrl = client.buildAuthorizationUrl(config, {
    redirect_uri: fixture.redirectUri,
    scope: SCOPE,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
  });
  const callback = await consentAt(authorizationUrl, fixture);
  // Checks state and (the server advertises RFC 9207) iss before it exchanges the code.
  return client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: codeVerifier,
    expectedState: state,
  });
}

/** The status of a workspace route called with an access token. */
async function modelsStatus(server: TestServer, fixture: OAuthFixture, accessToken: string): Promise<number> {
  return (await server.request('GET', `${fixture.ws}/models`, { headers: bearer(accessToken) })).status;
}

describe('an app integrating with openid-client', () => {
  let server: TestServer;
  let slugs = 0;
  const fixture = () => createOAuthFixture(server, `oidc-app-${++slugs}`);

  before(async () => {
    server = await startTestServer({ dev: true });
  });
  after(() => server.close());

  it('discovery (RFC 8414) finds the authorization, token and revocation endpoints; the issuer is the base URL', async () => {
    const config = await discover(server, await fixture());
    const metadata = config.serverMetadata();
    assert.equal(metadata.issuer, server.baseUrl);
    assert.equal(metadata.authorization_endpoint, `${server.baseUrl}/oauth/authorize`);
    assert.equal(metadata.token_endpoint, `${server.baseUrl}/oauth/token`);
    assert.equal(metadata.revocation_endpoint, `${server.baseUrl}/oauth/revoke`);
    assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
    assert.equal(metadata.authorization_response_iss_parameter_supported, true);
  });

  for (const authentication of ['client_secret_post', 'client_secret_basic'] as const) {
    it(`authorization code with PKCE S256 and ${authentication}: svc_at_ token for 3600 s, a refresh token, userinfo and workspace routes`, async () => {
      const app = await fixture();
      const config = await discover(server, app, authentication);
      const tokens = await authorize(config, app);
      assert.match(tokens.access_token, /^svc_at_/);
      assert.equal(tokens.token_type.toLowerCase(), 'bearer');
      assert.equal(tokens.expires_in, 3600);
      assert.equal(typeof tokens.refresh_token, 'string');
      assert.ok(tokens.refresh_token);
      assert.deepEqual(tokens.scope?.split(' ').sort(), SCOPE.split(' ').sort());

      const userinfo = await client.fetchProtectedResource(
        config,
        tokens.access_token,
        new URL('/api/oauth/userinfo', server.baseUrl),
        'GET',
      );
      assert.equal(userinfo.status, 200);
      const identity = (await userinfo.json()) as Record<string, unknown>;
      assert.equal(identity.sub, app.userId);
      assert.equal(identity.email, app.email);
      assert.equal(identity.workspaceSlug, app.slug);

      const models = await client.fetchProtectedResource(
        config,
        tokens.access_token,
        new URL(`${app.ws}/models`, server.baseUrl),
        'GET',
      );
      assert.equal(models.status, 200);
    });
  }

  it('refresh tokens do not rotate: a new access token, the same refresh token; the old access token still works; concurrent refreshes both succeed', async () => {
    const app = await fixture();
    const config = await discover(server, app);
    const first = await authorize(config, app);
    const refreshToken = first.refresh_token as string;

    const refreshed = await client.refreshTokenGrant(config, refreshToken);
    assert.match(refreshed.access_token, /^svc_at_/);
    assert.notEqual(refreshed.access_token, first.access_token);
    assert.equal(refreshed.refresh_token, refreshToken);
    assert.equal(refreshed.expires_in, 3600);
    assert.equal(await modelsStatus(server, app, refreshed.access_token), 200);
    assert.equal(await modelsStatus(server, app, first.access_token), 200, 'the old access token lives on');

    const concurrent = await Promise.all([
      client.refreshTokenGrant(config, refreshToken),
      client.refreshTokenGrant(config, refreshToken),
    ]);
    const accessTokens = new Set([first.access_token, refreshed.access_token]);
    for (const tokens of concurrent) {
      assert.equal(tokens.refresh_token, refreshToken);
      assert.ok(!accessTokens.has(tokens.access_token), 'each refresh issues a new access token');
      accessTokens.add(tokens.access_token);
    }
    for (const accessToken of accessTokens) assert.equal(await modelsStatus(server, app, accessToken), 200);
  });

  it('revoking the refresh token (RFC 7009) stops refresh and ends the access tokens of its grant', async () => {
    const app = await fixture();
    const config = await discover(server, app);
    const first = await authorize(config, app);
    const refreshToken = first.refresh_token as string;
    const refreshed = await client.refreshTokenGrant(config, refreshToken);
    const other = await authorize(config, app); // another grant of the same app: untouched

    await client.tokenRevocation(config, refreshToken);

    await assert.rejects(client.refreshTokenGrant(config, refreshToken), (error: unknown) => {
      assert.ok(error instanceof client.ResponseBodyError, String(error));
      assert.equal(error.error, 'invalid_grant');
      return true;
    });
    assert.equal(await modelsStatus(server, app, first.access_token), 401);
    assert.equal(await modelsStatus(server, app, refreshed.access_token), 401);
    assert.equal(await modelsStatus(server, app, other.access_token), 200);
  });

  for (const authentication of ['client_secret_post', 'client_secret_basic'] as const) {
    it(`client credentials (${authentication}): clientCredentialsGrant gives an svc_at_ token of the app, no refresh token, that starts and follows a run`, async () => {
      const app = await fixture();
      const config = await discover(server, app, authentication);
      assert.ok(config.serverMetadata().grant_types_supported?.includes('client_credentials'));
      const tokens = await client.clientCredentialsGrant(config, {
        scope: 'runs:read runs:write svc.identity:read',
      });
      assert.match(tokens.access_token, /^svc_at_/);
      assert.equal(tokens.token_type.toLowerCase(), 'bearer');
      assert.equal(tokens.expires_in, 3600);
      assert.equal(tokens.refresh_token, undefined);
      assert.deepEqual(tokens.scope?.split(' ').sort(), ['runs:read', 'runs:write'], 'no identity scope');

      const created = await client.fetchProtectedResource(
        config,
        tokens.access_token,
        new URL(`${app.ws}/agent-runs`, server.baseUrl),
        'POST',
        JSON.stringify({ systemPrompt: 'You are terse.', prompt: 'hi' }),
        new Headers({ 'content-type': 'application/json' }),
      );
      const run = (await created.json()) as { runId: string; streamUrl: string };
      assert.equal(created.status, 202, JSON.stringify(run));
      const frames = await readAll(
        new URL(run.streamUrl, server.baseUrl).toString(),
        bearer(tokens.access_token),
      );
      assert.equal(frames.at(-1)?.data.type, 'result', 'the run ran to its result');
    });
  }

  it('PKCE is mandatory: an app that sends no code_challenge is sent back with error=invalid_request', async () => {
    const app = await fixture();
    const config = await discover(server, app);
    const state = client.randomState();
    const authorizationUrl = client.buildAuthorizationUrl(config, {
      redirect_uri: app.redirectUri,
      scope: SCOPE,
      state,
    });
    const response = await fetch(authorizationUrl, { redirect: 'manual' });
    await response.body?.cancel();
    assert.equal(response.status, 302);
    const callback = new URL(response.headers.get('location') as string);
    assert.equal(`${callback.origin}${callback.pathname}`, app.redirectUri);
    assert.equal(callback.searchParams.get('error'), 'invalid_request');
    assert.equal(callback.searchParams.get('state'), state);
    assert.equal(callback.searchParams.get('iss'), server.baseUrl);
    assert.equal(callback.searchParams.get('code'), null);

    // The app, handing the callback to openid-client, gets the error (no code to exchange).
    await assert.rejects(
      client.authorizationCodeGrant(config, callback, { expectedState: state }),
      (error: unknown) => {
        assert.ok(error instanceof client.AuthorizationResponseError, String(error));
        assert.equal(error.error, 'invalid_request');
        return true;
      },
    );
  });
});
