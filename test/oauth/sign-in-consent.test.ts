import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OAUTH_SCOPES } from '../../src/domain/oauth-scopes.ts';
import {
  authorizeUrl,
  CookieJar,
  createOAuthFixture,
  exchangeCode,
  hiddenField,
  pkcePair,
  postForm,
  type OAuthFixture,
} from '../support/oauth-flow.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const STATE = 'state-xyz';

interface Started {
  jar: CookieJar;
  requestId: string;
  csrf: string;
  verifier: string;
}

/** GET /oauth/authorize as a browser: the sign-in page's request id and form token, the cookie in the jar. */
async function startAuthorization(
  server: TestServer,
  app: OAuthFixture,
  options: { jar?: CookieJar; scope?: string } = {},
): Promise<Started> {
  const jar = options.jar ?? new CookieJar();
  const { verifier, challenge } = pkcePair();
  const response = await fetch(
    authorizeUrl(server, app, {
      scope: options.scope ?? 'runs:read',
      state: STATE,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }),
    { headers: { cookie: jar.header() }, redirect: 'manual' },
  );
  jar.take(response);
  const page = await response.text();
  assert.equal(response.status, 200, page);
  return { jar, requestId: hiddenField(page, 'request'), csrf: hiddenField(page, 'csrf'), verifier };
}

function signIn(
  server: TestServer,
  started: Started,
  credentials: { email: string; password: string },
  overrides: { csrf?: string; request?: string; jar?: CookieJar | undefined } = {},
): Promise<Response> {
  const jar = 'jar' in overrides ? overrides.jar : started.jar;
  return postForm(`${server.baseUrl}/oauth/sign-in`, jar, {
    request: overrides.request ?? started.requestId,
    csrf: overrides.csrf ?? started.csrf,
    ...credentials,
  });
}

function getConsent(server: TestServer, cookie: string, requestId: string): Promise<Response> {
  return fetch(`${server.baseUrl}/oauth/consent?request=${requestId}`, {
    headers: { cookie },
    redirect: 'manual',
  });
}

/** Signed in and on the consent page: its form token and text. */
async function atConsent(
  server: TestServer,
  app: OAuthFixture,
  scope?: string,
): Promise<Started & { page: string }> {
  const started = await startAuthorization(server, app, { ...(scope && { scope }) });
  const signedIn = await signIn(server, started, app);
  await signedIn.body?.cancel();
  assert.equal(signedIn.status, 303);
  const consent = await getConsent(server, started.jar.header(), started.requestId);
  const page = await consent.text();
  assert.equal(consent.status, 200, page);
  return { ...started, csrf: hiddenField(page, 'csrf'), page };
}

function postConsent(server: TestServer, jar: CookieJar, fields: [string, string][]): Promise<Response> {
  return postForm(`${server.baseUrl}/oauth/consent`, jar, fields);
}

/** A refused form: the status, a page saying why, and no redirect. */
async function assertPage(response: Response, status: number, text: RegExp): Promise<string> {
  const body = await response.text();
  assert.equal(response.status, status, body);
  assert.equal(response.headers.get('location'), null);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(body, text);
  return body;
}

const FORM_EXPIRED = /<h1>Form expired<\/h1>/;
const REQUEST_EXPIRED = /<h1>Request expired<\/h1>[\s\S]*expired or was already answered/;
const INCORRECT = /The email or password is incorrect\./;

/** The sign-in page's markup with the per-request values (form token, request id, email) blanked. */
function normalized(page: string, email: string): string {
  return page
    .replace(/name="csrf" value="[^"]*"/, 'name="csrf" value=""')
    .replace(/name="request" value="[^"]*"/, 'name="request" value=""')
    .replaceAll(email, 'EMAIL');
}

describe('OAuth sign-in form', () => {
  let server: TestServer;
  let count = 0;
  const fixture = () => createOAuthFixture(server, `sign-in-${++count}`);

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('a wrong CSRF token is refused with a 403 page', async () => {
    const app = await fixture();
    const started = await startAuthorization(server, app);
    const tampered = `${started.csrf.slice(0, -1)}${started.csrf.endsWith('A') ? 'B' : 'A'}`;
    for (const csrf of ['forged', tampered, '']) {
      await assertPage(await signIn(server, started, app, { csrf }), 403, FORM_EXPIRED);
    }
  });

  it('a sign-in without the session cookie (or with a forged one) is refused with a 403 page', async () => {
    const app = await fixture();
    const started = await startAuthorization(server, app);
    await assertPage(await signIn(server, started, app, { jar: undefined }), 403, FORM_EXPIRED);
    const forged = await postForm(
      `${server.baseUrl}/oauth/sign-in`,
      undefined,
      { request: started.requestId, csrf: started.csrf, email: app.email, password: app.password },
      { cookie: 'svc_oauth_session=forged.c2lnbmF0dXJl' },
    );
    await assertPage(forged, 403, FORM_EXPIRED);
  });

  it('a CSRF token from another authorization request is refused with a 403 page', async () => {
    const app = await fixture();
    const first = await startAuthorization(server, app);
    const second = await startAuthorization(server, app, { jar: first.jar });
    assert.notEqual(first.requestId, second.requestId);
    const crossed = await signIn(server, second, app, { csrf: first.csrf });
    await assertPage(crossed, 403, FORM_EXPIRED);
    const own = await signIn(server, second, app);
    await own.body?.cancel();
    assert.equal(own.status, 303, "the request's own token is accepted");
  });

  it('an unknown or expired request id gets a 400 page', async () => {
    const app = await fixture();
    const started = await startAuthorization(server, app);
    await assertPage(await signIn(server, started, app, { request: 'unknown' }), 400, REQUEST_EXPIRED);
    await server.service.resources.storage.db
      .updateTable('oauth_authorization_requests')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', started.requestId)
      .execute();
    await assertPage(await signIn(server, started, app), 400, REQUEST_EXPIRED);
  });

  it('a wrong password gets a 401 page saying the email or password is incorrect, the email kept', async () => {
    const app = await fixture();
    const started = await startAuthorization(server, app);
    const response = await signIn(server, started, { email: app.email, password: 'wrong password!' });
    const page = await assertPage(response, 401, INCORRECT);
    assert.match(page, new RegExp(`name="email"[^>]*value="${app.email.replaceAll('.', '\\.')}"`));
    assert.match(page, /name="password"/);
    assert.equal(hiddenField(page, 'request'), started.requestId);
  });

  it('an unknown email gets the same 401 page as a wrong password (no account enumeration)', async () => {
    const app = await fixture();
    const started = await startAuthorization(server, app);
    const wrongPassword = await assertPage(
      await signIn(server, started, { email: app.email, password: 'wrong password!' }),
      401,
      INCORRECT,
    );
    const nobody = `nobody@${app.slug}.example`;
    const unknownEmail = await assertPage(
      await signIn(server, started, { email: nobody, password: 'wrong password!' }),
      401,
      INCORRECT,
    );
    assert.equal(normalized(unknownEmail, nobody), normalized(wrongPassword, app.email));
  });

  it('the email kept in the page is HTML-escaped', async () => {
    const app = await fixture();
    const started = await startAuthorization(server, app);
    const email = '"><script>alert(1)</script>@x.example';
    const page = await assertPage(
      await signIn(server, started, { email, password: 'whatever1' }),
      401,
      INCORRECT,
    );
    assert.ok(!page.includes('<script>alert(1)'), 'no markup injected');
    assert.ok(page.includes('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;@x.example"'));
  });

  it('the 11th attempt for one account within a minute gets a 429 page with Retry-After, even with the right password', async () => {
    const app = await fixture();
    const started = await startAuthorization(server, app);
    for (let attempt = 1; attempt <= 10; attempt++) {
      const response = await signIn(server, started, { email: app.email, password: `wrong ${attempt}` });
      await assertPage(response, 401, INCORRECT);
    }
    const eleventh = await signIn(server, started, { email: app.email, password: 'wrong 11' });
    const retryAfter = Number(eleventh.headers.get('retry-after'));
    await assertPage(eleventh, 429, /Too many sign-in attempts/);
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
      `Retry-After ${retryAfter}`,
    );
    const correct = await signIn(server, started, app);
    assert.ok(correct.headers.get('retry-after'));
    const page = await assertPage(correct, 429, /Too many sign-in attempts/);
    assert.doesNotMatch(page, /Allow/);
    const consent = await getConsent(server, started.jar.header(), started.requestId);
    await assertPage(consent, 200, /name="password"/);
  });

  it('a successful sign-in issues a new session cookie (session fixation) and redirects 303 to consent', async () => {
    const app = await fixture();
    const started = await startAuthorization(server, app);
    const before = started.jar.header();
    assert.match(before, /^svc_oauth_session=./);
    const response = await signIn(server, started, app);
    await response.body?.cancel();
    assert.equal(response.status, 303);
    const location = new URL(response.headers.get('location') as string, `${server.baseUrl}/oauth/`);
    assert.equal(location.pathname, '/oauth/consent');
    assert.equal(location.searchParams.get('request'), started.requestId);
    assert.ok(response.headers.getSetCookie().some((line) => line.startsWith('svc_oauth_session=')));
    const after = started.jar.header();
    assert.notEqual(after, before, 'the pre-sign-in session id is not kept');
    const consent = await getConsent(server, started.jar.header(), started.requestId);
    await assertPage(consent, 200, /<h1>Allow Test App\?<\/h1>/);
    const withOldCookie = await getConsent(server, before, started.requestId);
    await assertPage(withOldCookie, 200, /<h1>Sign in<\/h1>/);
  });
});

describe('OAuth consent form', () => {
  let server: TestServer;
  let count = 0;
  const fixture = () => createOAuthFixture(server, `consent-${++count}`);
  const codesOf = async (app: OAuthFixture) =>
    (
      await server.service.resources.storage.db
        .selectFrom('oauth_authorization_codes')
        .select('code_hash')
        .where('app_id', '=', app.clientId)
        .execute()
    ).length;
  const createAgent = async (app: OAuthFixture, name: string, system = false): Promise<string> => {
    const created = await server.admin('POST', `/workspaces/${app.slug}/agents`, {
      name,
      systemPrompt: 'You help.',
      ...(system && { system }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body.id;
  };

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('a wrong CSRF token (or the pre-sign-in one) is refused with a 403 page', async () => {
    const app = await fixture();
    const started = await startAuthorization(server, app);
    const preSignIn = started.csrf;
    const signedIn = await signIn(server, started, app);
    await signedIn.body?.cancel();
    const consent = await getConsent(server, started.jar.header(), started.requestId);
    const csrf = hiddenField(await consent.text(), 'csrf');
    for (const forged of ['forged', preSignIn]) {
      const response = await postConsent(server, started.jar, [
        ['request', started.requestId],
        ['csrf', forged],
        ['decision', 'allow'],
      ]);
      await assertPage(response, 403, FORM_EXPIRED);
    }
    assert.equal(await codesOf(app), 0);
    const allowed = await postConsent(server, started.jar, [
      ['request', started.requestId],
      ['csrf', csrf],
      ['decision', 'allow'],
    ]);
    assert.equal(allowed.status, 303, 'the request is still answerable with the right token');
  });

  it('GET consent without a signed-in session shows the sign-in page', async () => {
    const app = await fixture();
    const started = await startAuthorization(server, app);
    const response = await getConsent(server, '', started.requestId);
    const page = await assertPage(response, 200, /<h1>Sign in<\/h1>/);
    assert.match(page, /name="password"/);
    assert.doesNotMatch(page, /name="decision"/);
    assert.ok(response.headers.getSetCookie().some((line) => line.startsWith('svc_oauth_session=')));
  });

  it('decision=deny redirects 303 to the redirect URI with access_denied, the state and iss, and no code', async () => {
    const app = await fixture();
    const at = await atConsent(server, app);
    const response = await postConsent(server, at.jar, [
      ['request', at.requestId],
      ['csrf', at.csrf],
      ['decision', 'deny'],
    ]);
    assert.equal(response.status, 303);
    const location = new URL(response.headers.get('location') as string);
    assert.equal(`${location.origin}${location.pathname}`, app.redirectUri);
    assert.equal(location.searchParams.get('error'), 'access_denied');
    assert.equal(location.searchParams.get('state'), STATE);
    assert.equal(location.searchParams.get('iss'), server.baseUrl);
    assert.equal(location.searchParams.get('code'), null);
    assert.equal(await codesOf(app), 0);
  });

  it('"Sign in as someone else" ends the session: the same request shows the sign-in page, the old cookie is signed out', async () => {
    const app = await fixture();
    const at = await atConsent(server, app);
    const signedInCookie = at.jar.header();
    assert.match(at.page, /Sign in as someone else/);
    const forged = await postForm(`${server.baseUrl}/oauth/sign-out`, at.jar, {
      request: at.requestId,
      csrf: 'x',
    });
    await assertPage(forged, 403, /could not be verified/);
    const out = await postForm(`${server.baseUrl}/oauth/sign-out`, at.jar, {
      request: at.requestId,
      csrf: at.csrf,
    });
    await out.body?.cancel();
    assert.equal(out.status, 303);
    assert.equal(out.headers.get('location'), `consent?request=${at.requestId}`);
    assert.notEqual(at.jar.header(), signedInCookie, 'a new session cookie');
    const page = await assertPage(await getConsent(server, at.jar.header(), at.requestId), 200, /Sign in/);
    assert.match(page, /name="password"/);
    const old = await assertPage(await getConsent(server, signedInCookie, at.requestId), 200, /Sign in/);
    assert.match(old, /name="password"/, 'the old cookie no longer opens consent');
  });

  it('a workspace that loses the OAuth-applications feature before consent gets unauthorized_client, no code', async () => {
    const app = await fixture();
    const at = await atConsent(server, app);
    const patched = await server.admin('PATCH', `/workspaces/${app.slug}`, {
      features: { oauthApps: false },
    });
    assert.equal(patched.status, 200);
    const response = await postConsent(server, at.jar, [
      ['request', at.requestId],
      ['csrf', at.csrf],
      ['decision', 'allow'],
    ]);
    assert.equal(response.status, 303);
    const location = new URL(response.headers.get('location') as string);
    assert.equal(location.searchParams.get('error'), 'unauthorized_client');
    assert.equal(location.searchParams.get('state'), STATE);
    assert.equal(location.searchParams.get('code'), null);
    assert.equal(await codesOf(app), 0);
  });

  it('the same consent form submitted twice: the second gets a 400 page and only one code is issued', async () => {
    const app = await fixture();
    const at = await atConsent(server, app);
    const fields: [string, string][] = [
      ['request', at.requestId],
      ['csrf', at.csrf],
      ['decision', 'allow'],
    ];
    const first = await postConsent(server, at.jar, fields);
    assert.equal(first.status, 303);
    const location = new URL(first.headers.get('location') as string);
    assert.equal(`${location.origin}${location.pathname}`, app.redirectUri);
    assert.equal(location.searchParams.get('state'), STATE);
    assert.equal(location.searchParams.get('iss'), server.baseUrl);
    const code = location.searchParams.get('code');
    assert.ok(code);
    await assertPage(await postConsent(server, at.jar, fields), 400, REQUEST_EXPIRED);
    assert.equal(await codesOf(app), 1);
    assert.equal((await exchangeCode(server, app, code, at.verifier)).status, 200);
  });

  it('agentIds naming an unknown or a system agent gets a 400 page and the request can still be answered', async () => {
    const app = await fixture();
    const agentId = await createAgent(app, 'Helper');
    const systemId = await createAgent(app, 'Internal', true);
    const at = await atConsent(server, app);
    let csrf = at.csrf;
    for (const chosen of [`agt_${'0'.repeat(26)}`, systemId]) {
      const response = await postConsent(server, at.jar, [
        ['request', at.requestId],
        ['csrf', csrf],
        ['decision', 'allow'],
        ['agentIds', agentId],
        ['agentIds', chosen],
      ]);
      const page = await assertPage(response, 400, /One of the chosen agents no longer exists/);
      assert.match(page, /name="decision" value="allow"/, 'the consent form is shown again');
      csrf = hiddenField(page, 'csrf');
    }
    assert.equal(await codesOf(app), 0);
    const allowed = await postConsent(server, at.jar, [
      ['request', at.requestId],
      ['csrf', csrf],
      ['decision', 'allow'],
      ['agentIds', agentId],
    ]);
    assert.equal(allowed.status, 303);
    const code = new URL(allowed.headers.get('location') as string).searchParams.get('code');
    assert.ok(code);
    assert.equal((await exchangeCode(server, app, code, at.verifier)).status, 200);
    const grants = await server.admin('GET', `/workspaces/${app.slug}/oauth-grants`);
    assert.deepEqual(
      grants.body.oauthGrants.map((grant: { agentIds: string[] }) => grant.agentIds),
      [[agentId]],
    );
  });

  it('a submission without a decision (or with another value) gets a 400 page', async () => {
    const app = await fixture();
    const at = await atConsent(server, app);
    for (const decision of [[], [['decision', 'maybe']]] as [string, string][][]) {
      const response = await postConsent(server, at.jar, [
        ['request', at.requestId],
        ['csrf', at.csrf],
        ...decision,
      ]);
      await assertPage(response, 400, /Choose Allow or Deny\./);
    }
    assert.equal(await codesOf(app), 0);
  });

  it('the consent page lists each requested scope in words and each non-system agent as an agentIds checkbox', async () => {
    const app = await fixture();
    const first = await createAgent(app, 'Researcher');
    const second = await createAgent(app, 'Writer');
    const system = await createAgent(app, 'Router', true);
    const requested = ['runs:read', 'sessions:write', 'svc.identity:read'] as const;
    const { page } = await atConsent(server, app, requested.join(' '));
    for (const scope of requested) {
      assert.ok(page.includes(OAUTH_SCOPES[scope]), `scope ${scope} in words`);
      assert.ok(page.includes(`<code>${scope}</code>`));
    }
    assert.ok(!page.includes(OAUTH_SCOPES['runs:write']), 'scopes not requested are not listed');
    const checkboxes = [...page.matchAll(/<input type="checkbox" name="agentIds" value="([^"]+)"/g)].map(
      (match) => match[1],
    );
    assert.deepEqual(checkboxes.sort(), [first, second].sort());
    assert.ok(!page.includes(system), 'system agents are not offered');
    assert.match(page, /Researcher/);
    assert.match(page, /Writer/);
    assert.match(page, new RegExp(`Signed in as <strong>${app.email.replaceAll('.', '\\.')}</strong>`));
  });
});
