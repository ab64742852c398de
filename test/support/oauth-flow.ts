import { createHash, randomBytes } from 'node:crypto';
import type { TestServer } from './test-server.ts';

/** A workspace's OAuth setup through the admin API: one end user and one app. */
export interface OAuthFixture {
  slug: string;
  ws: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  email: string;
  password: string;
  userId: string;
}

/** Registers an end user and an app (redirect URI on loopback port 9: nothing listens, only its shape is used). */
export async function createOAuthFixture(
  server: TestServer,
  slug: string,
  options: { workspace?: Record<string, unknown>; redirectUri?: string } = {},
): Promise<OAuthFixture> {
  const created = await server.admin('POST', '/workspaces', { slug, ...options.workspace });
  if (created.status !== 201) throw new Error(`workspace: ${created.status} ${JSON.stringify(created.body)}`);
  const email = `person@${slug}.example`;
  const password = 'correct horse battery staple';
  const user = await server.admin('POST', `/workspaces/${slug}/users`, { email, password, name: 'Person' });
  if (user.status !== 201) throw new Error(`user: ${user.status} ${JSON.stringify(user.body)}`);
  const redirectUri = options.redirectUri ?? 'http://127.0.0.1:9/callback';
  const app = await server.admin('POST', `/workspaces/${slug}/oauth-apps`, {
    name: 'Test App',
    redirectUris: [redirectUri],
  });
  if (app.status !== 201) throw new Error(`app: ${app.status} ${JSON.stringify(app.body)}`);
  return {
    slug,
    ws: `/api/v1/workspaces/${slug}`,
    clientId: app.body.clientId,
    clientSecret: app.body.clientSecret,
    redirectUri,
    email,
    password,
    userId: user.body.id,
  };
}

/** A PKCE verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** One browser's cookies, enough for the authorization pages (one cookie, path /oauth). */
export class CookieJar {
  readonly #cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (pair && eq > 0) this.#cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  }
  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** The value of a hidden form field in a page. */
export function hiddenField(page: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(page);
  if (!match?.[1]) throw new Error(`no hidden field '${name}' in the page:\n${page}`);
  return match[1];
}

/** The authorization endpoint's URL for a fixture's app. */
export function authorizeUrl(
  server: TestServer,
  fixture: OAuthFixture,
  parameters: Record<string, string | undefined>,
): string {
  const url = new URL('/oauth/authorize', server.baseUrl);
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: fixture.clientId,
    redirect_uri: fixture.redirectUri,
    ...parameters,
  };
  for (const [name, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

export interface FormFlowOptions {
  scope: string;
  agentIds?: string[];
  decision?: 'allow' | 'deny';
  state?: string;
  pkce?: { verifier: string; challenge: string };
}

/**
 * The browser's part of the flow spoken as plain HTTP (as a browser without JavaScript would):
 * authorization endpoint, sign-in form, consent form. Returns the redirect back to the app.
 */
export async function consentByForm(
  server: TestServer,
  fixture: OAuthFixture,
  options: FormFlowOptions,
): Promise<{ redirect: URL; verifier: string }> {
  const pkce = options.pkce ?? pkcePair();
  const jar = new CookieJar();
  const start = await fetch(
    authorizeUrl(server, fixture, {
      scope: options.scope,
      state: options.state ?? 'state-1',
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
    }),
    { redirect: 'manual' },
  );
  jar.take(start);
  const signInPage = await start.text();
  if (start.status !== 200) throw new Error(`authorize: ${start.status} ${signInPage}`);
  const requestId = hiddenField(signInPage, 'request');
  const signIn = await postForm(`${server.baseUrl}/oauth/sign-in`, jar, {
    request: requestId,
    csrf: hiddenField(signInPage, 'csrf'),
    email: fixture.email,
    password: fixture.password,
  });
  if (signIn.status !== 303) throw new Error(`sign-in: ${signIn.status} ${await signIn.text()}`);
  const consent = await fetch(new URL(signIn.headers.get('location') as string, `${server.baseUrl}/oauth/`), {
    headers: { cookie: jar.header() },
    redirect: 'manual',
  });
  const consentPage = await consent.text();
  if (consent.status !== 200) throw new Error(`consent page: ${consent.status} ${consentPage}`);
  const fields: [string, string][] = [
    ['request', requestId],
    ['csrf', hiddenField(consentPage, 'csrf')],
    ['decision', options.decision ?? 'allow'],
    ...(options.agentIds ?? []).map((id): [string, string] => ['agentIds', id]),
  ];
  const decided = await postForm(`${server.baseUrl}/oauth/consent`, jar, fields);
  if (decided.status !== 303) throw new Error(`consent: ${decided.status} ${await decided.text()}`);
  return { redirect: new URL(decided.headers.get('location') as string), verifier: pkce.verifier };
}

export async function postForm(
  url: string,
  jar: CookieJar | undefined,
  fields: Record<string, string> | [string, string][],
  headers: Record<string, string> = {},
): Promise<Response> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(jar && { cookie: jar.header() }),
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  jar?.take(response);
  return response;
}

export interface TokenResponse {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

/** Exchanges a code at the token endpoint (client secret in the body). */
export async function exchangeCode(
  server: TestServer,
  fixture: OAuthFixture,
  code: string,
  verifier: string,
): Promise<{ status: number; body: TokenResponse & { error?: string; error_description?: string } }> {
  const response = await postForm(`${server.baseUrl}/oauth/token`, undefined, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: fixture.redirectUri,
    code_verifier: verifier,
    client_id: fixture.clientId,
    client_secret: fixture.clientSecret,
  });
  return { status: response.status, body: (await response.json()) as TokenResponse };
}

/** The whole flow: consent by form, then the code exchanged for tokens. */
export async function obtainTokens(
  server: TestServer,
  fixture: OAuthFixture,
  options: Omit<FormFlowOptions, 'decision'>,
): Promise<TokenResponse> {
  const { redirect, verifier } = await consentByForm(server, fixture, options);
  const code = redirect.searchParams.get('code');
  if (!code) throw new Error(`no code in ${redirect.toString()}`);
  const exchanged = await exchangeCode(server, fixture, code, verifier);
  if (exchanged.status !== 200)
    throw new Error(`token: ${exchanged.status} ${JSON.stringify(exchanged.body)}`);
  return exchanged.body;
}

/**
 * The browser's part for an authorization URL an app built itself (e.g. with openid-client): GETs it,
 * posts the sign-in and consent forms, and returns the redirect back to the app.
 */
export async function consentAt(
  authorizationUrl: URL | string,
  fixture: OAuthFixture,
  options: { agentIds?: string[]; decision?: 'allow' | 'deny' } = {},
): Promise<URL> {
  const jar = new CookieJar();
  const start = await fetch(authorizationUrl, { redirect: 'manual' });
  jar.take(start);
  const signInPage = await start.text();
  if (start.status !== 200) throw new Error(`authorize: ${start.status} ${signInPage}`);
  const pages = new URL('/oauth/', authorizationUrl);
  const requestId = hiddenField(signInPage, 'request');
  const signIn = await postForm(new URL('sign-in', pages).toString(), jar, {
    request: requestId,
    csrf: hiddenField(signInPage, 'csrf'),
    email: fixture.email,
    password: fixture.password,
  });
  if (signIn.status !== 303) throw new Error(`sign-in: ${signIn.status} ${await signIn.text()}`);
  const consent = await fetch(new URL(signIn.headers.get('location') as string, pages), {
    headers: { cookie: jar.header() },
    redirect: 'manual',
  });
  const consentPage = await consent.text();
  if (consent.status !== 200) throw new Error(`consent page: ${consent.status} ${consentPage}`);
  const decided = await postForm(new URL('consent', pages).toString(), jar, [
    ['request', requestId],
    ['csrf', hiddenField(consentPage, 'csrf')],
    ['decision', options.decision ?? 'allow'],
    ...(options.agentIds ?? []).map((id): [string, string] => ['agentIds', id]),
  ]);
  if (decided.status !== 303) throw new Error(`consent: ${decided.status} ${await decided.text()}`);
  return new URL(decided.headers.get('location') as string);
}
