/** Requests to the token and revocation endpoints, and the checks the OAuth tests share. */
import assert from 'node:assert/strict';
import { consentByForm, obtainTokens, postForm, type OAuthFixture } from '../support/oauth-flow.ts';
import { bearer, type TestResponse, type TestServer } from '../support/test-server.ts';

export type Fields = Record<string, string>;

/** A form post to the token or revocation endpoint; the answer's body parsed (`{}` when empty). */
export async function postTo(
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
export function basic(clientId: string, clientSecret: string): Fields {
  const pair = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`;
  return { authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
}

export const tokenPost = (server: TestServer, fields: Fields, headers: Fields = {}) =>
  postTo(server, '/oauth/token', fields, headers);

export const credentialsOf = (app: OAuthFixture) => ({
  client_id: app.clientId,
  client_secret: app.clientSecret,
});

let people = 0;

/**
 * The fixture with a new end user of its workspace: sign-in is throttled to 10 attempts a minute per
 * account, so each consent signs in as someone new.
 */
export async function newPerson(server: TestServer, fixture: OAuthFixture): Promise<OAuthFixture> {
  const email = `person-${++people}@${fixture.slug}.example`;
  const { password } = fixture;
  const user = await server.admin('POST', `/workspaces/${fixture.slug}/users`, { email, password });
  assert.equal(user.status, 201, JSON.stringify(user.body));
  return { ...fixture, email, userId: user.body.id };
}

/** A fresh authorization code of the fixture's app (consented by a new user) and its PKCE verifier. */
export async function codeFor(server: TestServer, fixture: OAuthFixture, scope = 'models:read runs:write') {
  const { redirect, verifier } = await consentByForm(server, await newPerson(server, fixture), { scope });
  const code = redirect.searchParams.get('code');
  assert.ok(code, `a code in ${redirect.toString()}`);
  return { code, verifier };
}

export const codeExchange = (fixture: OAuthFixture, code: string, verifier: string) => ({
  grant_type: 'authorization_code',
  code,
  redirect_uri: fixture.redirectUri,
  code_verifier: verifier,
});

export const refresh = (server: TestServer, fixture: OAuthFixture, refreshToken: string, extra = {}) =>
  tokenPost(server, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    ...credentialsOf(fixture),
    ...extra,
  });

export const revoke = (server: TestServer, fixture: OAuthFixture, token: string) =>
  postTo(server, '/oauth/revoke', { token, ...credentialsOf(fixture) });

/** Tokens of the fixture's app, consented by a new user. */
export const tokensFor = async (server: TestServer, fixture: OAuthFixture, scope = 'models:read') =>
  obtainTokens(server, await newPerson(server, fixture), { scope });

/** A workspace route that needs models:read: 200 for a live token, 401 for a dead one. */
export const models = (server: TestServer, fixture: OAuthFixture, token: string) =>
  server.request('GET', `${fixture.ws}/models`, { headers: bearer(token) });

export async function assertTokenRejected(server: TestServer, fixture: OAuthFixture, token: string) {
  const response = await models(server, fixture, token);
  assert.equal(response.status, 401, `a dead token is refused: ${JSON.stringify(response.body)}`);
  assert.equal(response.body.error, 'Invalid access token');
}

export function assertOAuthError(answer: TestResponse, status: number, error: string) {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.equal(answer.body.error, error);
  assert.equal(typeof answer.body.error_description, 'string');
}
