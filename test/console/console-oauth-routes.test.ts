import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CookieJar, hiddenField, postForm } from '../support/oauth-flow.ts';
import { bearer, startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * The console's OAuth sign-in over plain HTTP (extensions §12: sign-in "through OAuth"), on both
 * deployments: start → the authorization pages → the console's callback → the single-use handoff.
 */

const PASSWORD = 'correct horse battery staple';

interface Workspace {
  slug: string;
  email: string;
}

/** A workspace with an end user and, unless `consoleApp` is false, an OAuth app registered for the console. */
async function createWorkspace(
  server: TestServer,
  slug: string,
  options: { consoleApp?: boolean; features?: Record<string, boolean> } = {},
): Promise<Workspace> {
  const created = await server.admin('POST', '/workspaces', {
    slug,
    ...(options.features && { features: options.features }),
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const email = `person@${slug}.example`;
  const user = await server.admin('POST', `/workspaces/${slug}/users`, { email, password: PASSWORD });
  assert.equal(user.status, 201, JSON.stringify(user.body));
  const redirectUris = ['http://127.0.0.1:9/callback'];
  if (options.consoleApp !== false) redirectUris.push(`${server.baseUrl}/console/callback`);
  const app = await server.admin('POST', `/workspaces/${slug}/oauth-apps`, { name: 'Console', redirectUris });
  assert.equal(app.status, 201, JSON.stringify(app.body));
  return { slug, email };
}

/** A redirect's target, resolved. */
function locationOf(response: Response): URL {
  const location = response.headers.get('location');
  assert.ok(location, `a redirect (status ${response.status})`);
  return new URL(location, response.url);
}

/** The console's sign-in page with a reason: `/console#/sign-in?error=…&workspace=…`. */
function signInReason(location: URL): { error: string | null; workspace: string | null } {
  assert.equal(location.pathname, '/console');
  assert.match(location.hash, /^#\/sign-in\?/);
  const query = new URLSearchParams(location.hash.slice('#/sign-in?'.length));
  return { error: query.get('error'), workspace: query.get('workspace') };
}

async function get(url: string | URL, jar: CookieJar): Promise<Response> {
  const response = await fetch(url, { headers: { cookie: jar.header() }, redirect: 'manual' });
  jar.take(response);
  return response;
}

/** GET /console/oauth/start for the slug, as the console's script navigates there. */
function start(server: TestServer, slug: string, jar: CookieJar): Promise<Response> {
  return get(`${server.baseUrl}/console/oauth/start?workspace=${encodeURIComponent(slug)}`, jar);
}

/**
 * Start, sign in and answer consent as a browser without script would; returns the redirect to the
 * console's callback (not followed).
 */
async function throughConsent(
  server: TestServer,
  workspace: Workspace,
  jar: CookieJar,
  decision: 'allow' | 'deny' = 'allow',
): Promise<URL> {
  const started = await start(server, workspace.slug, jar);
  assert.equal(started.status, 303);
  const authorize = locationOf(started);
  assert.equal(authorize.pathname, '/oauth/authorize');
  const signInPage = await get(authorize, jar);
  const signInHtml = await signInPage.text();
  assert.equal(signInPage.status, 200, signInHtml);
  const request = hiddenField(signInHtml, 'request');
  const signedIn = await postForm(`${server.baseUrl}/oauth/sign-in`, jar, {
    request,
    csrf: hiddenField(signInHtml, 'csrf'),
    email: workspace.email,
    password: PASSWORD,
  });
  assert.equal(signedIn.status, 303, await signedIn.text());
  const consentPage = await get(
    new URL(signedIn.headers.get('location') as string, `${server.baseUrl}/oauth/`),
    jar,
  );
  const consentHtml = await consentPage.text();
  assert.equal(consentPage.status, 200, consentHtml);
  const decided = await postForm(`${server.baseUrl}/oauth/consent`, jar, {
    request,
    csrf: hiddenField(consentHtml, 'csrf'),
    decision,
  });
  assert.equal(decided.status, 303, await decided.text());
  const callback = new URL(decided.headers.get('location') as string);
  assert.equal(`${callback.origin}${callback.pathname}`, `${server.baseUrl}/console/callback`);
  return callback;
}

/** The handoff id of the callback's redirect to `/console#/oauth-handoff/{id}`. */
function handoffOf(redirect: Response): string {
  assert.equal(redirect.status, 303);
  const location = locationOf(redirect);
  assert.equal(location.pathname, '/console');
  const match = /^#\/oauth-handoff\/([A-Za-z0-9]+)$/.exec(location.hash);
  assert.ok(match?.[1], `a handoff in ${location.hash}`);
  return match[1];
}

async function redeem(server: TestServer, jar: CookieJar, body: unknown) {
  const response = await fetch(`${server.baseUrl}/console/oauth/handoff`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: jar.header() },
    body: JSON.stringify(body),
  });
  jar.take(response);
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

describe('console sign-in through OAuth: start, callback and handoff routes (extensions §12)', () => {
  let server: TestServer;
  let withApp: Workspace;

  before(async () => {
    server = await startTestServer();
    withApp = await createWorkspace(server, 'console-oauth');
  });

  after(() => server?.close());

  it('a person signs in through the workspace’s console app: the handoff gives an access token for the workspace, without a refresh token', async () => {
    const jar = new CookieJar();
    const callback = await throughConsent(server, withApp, jar);
    const landed = await get(callback, jar);
    const handoff = handoffOf(landed);
    const redeemed = await redeem(server, jar, { handoff });
    assert.equal(redeemed.status, 200, JSON.stringify(redeemed.body));
    assert.equal(redeemed.headers.get('cache-control'), 'no-store');
    assert.equal(redeemed.body.workspaceSlug, withApp.slug);
    assert.equal(redeemed.body.tokenType, 'Bearer');
    const token = redeemed.body.accessToken as string;
    assert.match(token, /^svc_at_/);
    assert.equal(
      Object.keys(redeemed.body).some((name) => /refresh/i.test(name)),
      false,
    );
    const expiresIn = Date.parse(redeemed.body.expiresAt as string) - Date.now();
    assert.ok(expiresIn > 3500_000 && expiresIn <= 3600_000, `expires in about an hour (${expiresIn} ms)`);
    const runs = await server.request('GET', `/api/v1/workspaces/${withApp.slug}/agent-runs`, {
      headers: bearer(token),
    });
    assert.equal(runs.status, 200, JSON.stringify(runs.body));
  });

  it('the sign-in cookies are HttpOnly, signed and scoped to the console’s paths', async () => {
    const jar = new CookieJar();
    const started = await start(server, withApp.slug, jar);
    const pending = started.headers.getSetCookie().find((line) => line.startsWith('svc_console_sign_in='));
    assert.ok(pending, 'the started sign-in is kept in a cookie');
    assert.match(pending, /; Path=\/console(;|$)/);
    assert.match(pending, /; HttpOnly/);
    assert.match(pending, /; SameSite=Lax/);
    const authorize = locationOf(started);
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authorize.searchParams.get('redirect_uri'), `${server.baseUrl}/console/callback`);
    assert.ok(!pending.includes(authorize.searchParams.get('code_challenge') as string));
  });

  it('a handoff is redeemed once: its second use is 404 not_found', async () => {
    const jar = new CookieJar();
    const handoff = handoffOf(await get(await throughConsent(server, withApp, jar), jar));
    const bindingCookie = jar.header();
    assert.equal((await redeem(server, jar, { handoff })).status, 200);
    const again = await redeem(server, jar, { handoff });
    assert.equal(again.status, 404);
    assert.equal(again.body.error, 'not_found');
    assert.match(again.body.message as string, /already used|expired/);
    // Even with the binding cookie as it was before the first redemption.
    const replayed = await fetch(`${server.baseUrl}/console/oauth/handoff`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: bindingCookie },
      body: JSON.stringify({ handoff }),
    });
    assert.equal(replayed.status, 404);
  });

  it('an unknown handoff is 404 not_found; a body without one is 400 invalid_request', async () => {
    const jar = new CookieJar();
    const unknown = await redeem(server, jar, { handoff: 'A'.repeat(43) });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, 'not_found');
    for (const body of [{}, { handoff: '' }, { handoff: 42 }]) {
      const refused = await redeem(server, jar, body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.equal(refused.body.error, 'invalid_request');
      assert.equal(typeof refused.body.message, 'string');
    }
  });

  it('a handoff presented from another browser (without its binding cookie) is refused and used up', async () => {
    const jar = new CookieJar();
    const handoff = handoffOf(await get(await throughConsent(server, withApp, jar), jar));
    const elsewhere = await redeem(server, new CookieJar(), { handoff });
    assert.equal(elsewhere.status, 404);
    assert.equal((await redeem(server, jar, { handoff })).status, 404);
  });

  it('a callback whose state is not the one this browser started with is bad_state and signs nobody in', async () => {
    const jar = new CookieJar();
    const callback = await throughConsent(server, withApp, jar);
    const tampered = new URL(callback);
    tampered.searchParams.set('state', 'not-the-state');
    const refused = await get(tampered, jar);
    assert.equal(refused.status, 303);
    assert.deepEqual(signInReason(locationOf(refused)), { error: 'bad_state', workspace: withApp.slug });
    // The callback ends the started sign-in: the true state no longer works either.
    const retried = await get(callback, jar);
    assert.equal(signInReason(locationOf(retried)).error, 'bad_state');
    // Without the browser's cookie at all (another browser opening the link).
    const stranger = await get(callback, new CookieJar());
    assert.deepEqual(signInReason(locationOf(stranger)), { error: 'bad_state', workspace: null });
  });

  it('denied consent lands on the console’s sign-in page with access_denied', async () => {
    const jar = new CookieJar();
    const callback = await throughConsent(server, withApp, jar, 'deny');
    assert.equal(callback.searchParams.get('error'), 'access_denied');
    const landed = await get(callback, jar);
    assert.deepEqual(signInReason(locationOf(landed)), { error: 'access_denied', workspace: withApp.slug });
  });

  it('a workspace without a console app, an unknown workspace, a plan without OAuth apps and no slug each say why', async () => {
    await createWorkspace(server, 'console-oauth-no-app', { consoleApp: false });
    await createWorkspace(server, 'console-oauth-no-plan', { features: { oauthApps: false } });
    const cases = [
      ['console-oauth-no-app', 'no_console_app'],
      ['console-oauth-nobody', 'unknown_workspace'],
      ['console-oauth-no-plan', 'oauth_apps_plan'],
    ] as const;
    for (const [slug, error] of cases) {
      const jar = new CookieJar();
      const refused = await start(server, slug, jar);
      assert.equal(refused.status, 303, slug);
      assert.deepEqual(signInReason(locationOf(refused)), { error, workspace: slug });
      assert.equal(refused.headers.getSetCookie().length, 0, 'no sign-in is started');
    }
    const empty = await get(`${server.baseUrl}/console/oauth/start`, new CookieJar());
    assert.deepEqual(signInReason(locationOf(empty)), { error: 'workspace_missing', workspace: null });
  });
});
