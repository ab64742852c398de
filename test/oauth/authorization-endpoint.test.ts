import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OAUTH_SCOPE_NAMES } from '../../src/domain/oauth-scopes.ts';
import {
  authorizeUrl,
  createOAuthFixture,
  hiddenField,
  pkcePair,
  postForm,
  type OAuthFixture,
} from '../support/oauth-flow.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const SESSION_COOKIE = 'svc_oauth_session';
/** Shaped like an app's client id, but registered nowhere. */
const UNKNOWN_CLIENT_ID = `app_${'0'.repeat(26)}`;

function get(url: string): Promise<Response> {
  return fetch(url, { redirect: 'manual' });
}

/** The query of a valid request; each test overrides the part it breaks (undefined leaves it out). */
function validQuery(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    scope: 'runs:read',
    state: 'state-xyz',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  };
}

/** A 400 HTML page that says so and sends the browser nowhere. */
async function assertErrorPage(response: Response, text: RegExp): Promise<void> {
  const body = await response.text();
  assert.equal(response.status, 400, body);
  assert.equal(response.headers.get('location'), null, 'an unverified client is never redirected to');
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(body, /<h1>Invalid request<\/h1>/);
  assert.match(body, text);
}

/** A 302 back to the app's registered redirect URI with the error, the state and the issuer, and no code. */
function assertErrorRedirect(
  response: Response,
  fixture: OAuthFixture,
  expected: { error: string; state?: string | null; issuer: string },
): URL {
  assert.equal(response.status, 302);
  const location = new URL(response.headers.get('location') as string);
  assert.equal(`${location.origin}${location.pathname}`, fixture.redirectUri);
  assert.equal(location.searchParams.get('error'), expected.error);
  assert.equal(
    location.searchParams.get('state'),
    expected.state === undefined ? 'state-xyz' : expected.state,
  );
  assert.equal(location.searchParams.get('iss'), expected.issuer);
  assert.equal(location.searchParams.get('code'), null);
  assert.ok(location.searchParams.get('error_description'), 'the error is described');
  return location;
}

/** The attributes of the session cookie's Set-Cookie line, lowercased, by name. */
function sessionCookieAttributes(response: Response): Map<string, string> {
  const line = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`));
  assert.ok(line, `a ${SESSION_COOKIE} cookie is set`);
  const attributes = new Map<string, string>();
  for (const part of line.split(';').slice(1)) {
    const [name = '', value = ''] = part.trim().split('=');
    attributes.set(name.toLowerCase(), value.toLowerCase());
  }
  return attributes;
}

function assertPageSecurityHeaders(response: Response): void {
  const csp = response.headers.get('content-security-policy') ?? '';
  assert.match(csp, /(^|;)\s*frame-ancestors 'none'\s*(;|$)/, csp);
  assert.equal(response.headers.get('x-frame-options'), 'DENY');
  assert.equal(response.headers.get('cache-control'), 'no-store');
}

describe('OAuth authorization endpoint: checks of the request', () => {
  let server: TestServer;
  let count = 0;
  const fixture = () => createOAuthFixture(server, `authz-endpoint-${++count}`);

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('an unknown client_id gets a 400 page and no redirect', async () => {
    const app = await fixture();
    const response = await get(authorizeUrl(server, { ...app, clientId: UNKNOWN_CLIENT_ID }, validQuery()));
    await assertErrorPage(response, /not registered/);
  });

  it('a missing client_id gets a 400 page and no redirect', async () => {
    const app = await fixture();
    const url = authorizeUrl(server, app, validQuery({ client_id: undefined }));
    assert.equal(new URL(url).searchParams.has('client_id'), false);
    await assertErrorPage(await get(url), /client_id is missing/);
  });

  it('a redirect_uri not registered for the app gets a 400 page and no redirect', async () => {
    const app = await fixture();
    for (const redirectUri of [
      'http://127.0.0.1:9/elsewhere',
      `${app.redirectUri}/`,
      `${app.redirectUri}?extra=1`,
      'http://127.0.0.1:10/callback',
    ]) {
      const response = await get(authorizeUrl(server, app, validQuery({ redirect_uri: redirectUri })));
      await assertErrorPage(response, /not one registered for this application/);
    }
  });

  it('a missing code_challenge is sent back to the redirect URI as invalid_request with the state and iss', async () => {
    const app = await fixture();
    const response = await get(
      authorizeUrl(server, app, validQuery({ code_challenge: undefined, code_challenge_method: undefined })),
    );
    const location = assertErrorRedirect(response, app, { error: 'invalid_request', issuer: server.baseUrl });
    assert.match(location.searchParams.get('error_description') as string, /code_challenge is required/);
  });

  it('code_challenge_method=plain is refused with invalid_request (PKCE must use S256)', async () => {
    const app = await fixture();
    const { verifier } = pkcePair();
    const response = await get(
      authorizeUrl(server, app, validQuery({ code_challenge: verifier, code_challenge_method: 'plain' })),
    );
    const location = assertErrorRedirect(response, app, { error: 'invalid_request', issuer: server.baseUrl });
    assert.match(location.searchParams.get('error_description') as string, /S256/);
  });

  it('a code_challenge without a method (which means plain) is refused with invalid_request', async () => {
    const app = await fixture();
    const response = await get(authorizeUrl(server, app, validQuery({ code_challenge_method: undefined })));
    assertErrorRedirect(response, app, { error: 'invalid_request', issuer: server.baseUrl });
  });

  it('a malformed S256 code_challenge is refused with invalid_request', async () => {
    const app = await fixture();
    const valid = pkcePair().challenge;
    for (const challenge of [
      '',
      'too-short',
      `${valid}A`,
      `${valid.slice(0, 42)}+`,
      `${valid.slice(0, 42)}=`,
    ]) {
      const response = await get(authorizeUrl(server, app, validQuery({ code_challenge: challenge })));
      assertErrorRedirect(response, app, { error: 'invalid_request', issuer: server.baseUrl });
    }
  });

  it('an unknown scope is refused with invalid_scope', async () => {
    const app = await fixture();
    const response = await get(
      authorizeUrl(server, app, validQuery({ scope: 'runs:read admin:everything' })),
    );
    const location = assertErrorRedirect(response, app, { error: 'invalid_scope', issuer: server.baseUrl });
    assert.match(location.searchParams.get('error_description') as string, /admin:everything/);
  });

  it('a request with no scope (missing or blank) is refused with invalid_scope', async () => {
    const app = await fixture();
    for (const scope of [undefined, '', '   ']) {
      const response = await get(authorizeUrl(server, app, validQuery({ scope })));
      assertErrorRedirect(response, app, { error: 'invalid_scope', issuer: server.baseUrl });
    }
  });

  it('response_type=token is refused with unsupported_response_type', async () => {
    const app = await fixture();
    const response = await get(authorizeUrl(server, app, validQuery({ response_type: 'token' })));
    assertErrorRedirect(response, app, { error: 'unsupported_response_type', issuer: server.baseUrl });
  });

  it('an error redirect without a state carries no state parameter', async () => {
    const app = await fixture();
    const response = await get(authorizeUrl(server, app, validQuery({ state: undefined, scope: 'nope' })));
    assertErrorRedirect(response, app, { error: 'invalid_scope', state: null, issuer: server.baseUrl });
  });

  it('a workspace without the OAuth-applications feature gets unauthorized_client', async () => {
    const app = await fixture();
    const before = await get(authorizeUrl(server, app, validQuery()));
    assert.equal(before.status, 200, 'the same request passes while the feature is on');
    await before.body?.cancel();
    const patched = await server.admin('PATCH', `/workspaces/${app.slug}`, {
      features: { oauthApps: false },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const response = await get(authorizeUrl(server, app, validQuery()));
    assertErrorRedirect(response, app, { error: 'unauthorized_client', issuer: server.baseUrl });
  });

  it('a valid request shows the sign-in page with email and password fields and sets the session cookie', async () => {
    const app = await fixture();
    const response = await get(authorizeUrl(server, app, validQuery()));
    const body = await response.text();
    assert.equal(response.status, 200, body);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(body, /<input\s[^>]*name="email"/);
    assert.match(body, /<input\s[^>]*name="password"[^>]*type="password"/);
    assert.match(body, /<input type="hidden" name="request" value="[^"]+"/);
    assert.match(body, /<input type="hidden" name="csrf" value="[^"]+"/);
    assert.match(body, /Test App/);
    sessionCookieAttributes(response);
  });
});

describe('OAuth pages: cookies, security headers and metadata over http', () => {
  let server: TestServer;
  let count = 0;
  const fixture = () => createOAuthFixture(server, `authz-headers-${++count}`);

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('the session cookie is HttpOnly, SameSite=Lax, Path=/oauth and not Secure over http', async () => {
    const app = await fixture();
    const response = await get(authorizeUrl(server, app, validQuery()));
    await response.body?.cancel();
    const attributes = sessionCookieAttributes(response);
    assert.ok(attributes.has('httponly'), 'HttpOnly');
    assert.equal(attributes.get('samesite'), 'lax');
    assert.equal(attributes.get('path'), '/oauth');
    assert.equal(attributes.has('secure'), false, 'no Secure over http');
  });

  it("every page sends Content-Security-Policy frame-ancestors 'none', X-Frame-Options DENY and Cache-Control no-store", async () => {
    const app = await fixture();
    const signIn = await get(authorizeUrl(server, app, validQuery()));
    const requestId = hiddenField(await signIn.text(), 'request');
    assert.equal(signIn.status, 200);
    const invalid = await get(authorizeUrl(server, { ...app, clientId: UNKNOWN_CLIENT_ID }, validQuery()));
    await invalid.body?.cancel();
    assert.equal(invalid.status, 400);
    const expired = await postForm(`${server.baseUrl}/oauth/sign-in`, undefined, { request: 'unknown' });
    await expired.body?.cancel();
    assert.equal(expired.status, 400);
    const forbidden = await postForm(`${server.baseUrl}/oauth/sign-in`, undefined, { request: requestId });
    await forbidden.body?.cancel();
    assert.equal(forbidden.status, 403);
    for (const response of [signIn, invalid, expired, forbidden]) assertPageSecurityHeaders(response);
  });

  it('the metadata names the issuer, the endpoints, S256 only, the grant types and every scope', async () => {
    const response = await server.request('GET', '/.well-known/oauth-authorization-server');
    assert.equal(response.status, 200);
    const metadata = response.body;
    assert.equal(metadata.issuer, server.baseUrl);
    assert.equal(metadata.authorization_endpoint, `${server.baseUrl}/oauth/authorize`);
    assert.equal(metadata.token_endpoint, `${server.baseUrl}/oauth/token`);
    assert.equal(metadata.revocation_endpoint, `${server.baseUrl}/oauth/revoke`);
    assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(metadata.response_types_supported, ['code']);
    assert.deepEqual([...metadata.grant_types_supported].sort(), [
      'authorization_code',
      'client_credentials',
      'refresh_token',
    ]);
    assert.equal(metadata.authorization_response_iss_parameter_supported, true);
    for (const scope of OAUTH_SCOPE_NAMES) assert.ok(metadata.scopes_supported.includes(scope), scope);
    assert.equal(metadata.scopes_supported.length, OAUTH_SCOPE_NAMES.length);
  });
});

describe('OAuth pages behind an https AGENT_RUNS_PUBLIC_URL', () => {
  const publicUrl = 'https://127.0.0.1:9';
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ env: { AGENT_RUNS_PUBLIC_URL: publicUrl } });
  });
  after(() => server.close());

  it('the session cookie is Secure', async () => {
    const app = await createOAuthFixture(server, 'authz-public-cookie');
    const response = await get(authorizeUrl(server, app, validQuery()));
    await response.body?.cancel();
    assert.equal(response.status, 200);
    const attributes = sessionCookieAttributes(response);
    assert.ok(attributes.has('secure'), 'Secure when the service is served over https');
    assert.ok(attributes.has('httponly'));
    assert.equal(attributes.get('samesite'), 'lax');
  });

  it('the metadata issuer and the error redirects carry the public URL', async () => {
    const metadata = await server.request('GET', '/.well-known/oauth-authorization-server');
    assert.equal(metadata.body.issuer, publicUrl);
    assert.equal(metadata.body.authorization_endpoint, `${publicUrl}/oauth/authorize`);
    const app = await createOAuthFixture(server, 'authz-public-iss');
    const response = await get(authorizeUrl(server, app, validQuery({ scope: 'unknown' })));
    assertErrorRedirect(response, app, { error: 'invalid_scope', issuer: publicUrl });
  });
});
