import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOAuthFixture, type OAuthFixture } from '../support/oauth-flow.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { basic, postTo, refresh, tokensFor, type Fields } from './token-requests.ts';

/** A Basic challenge naming a realm, as RFC 6749 §5.2 asks of a 401 (RFC 7617 syntax). */
const BASIC_CHALLENGE = /^Basic realm="[^"]+"$/;

type Endpoint = '/oauth/token' | '/oauth/revoke';

/** One way a client may fail to authenticate, and how RFC 6749 §5.2 and our ruling answer it. */
interface Failure {
  name: string;
  fields: (app: OAuthFixture) => Fields;
  headers?: (app: OAuthFixture) => Fields;
  status: 400 | 401;
  error: 'invalid_client' | 'invalid_request';
}

const FAILURES: readonly Failure[] = [
  {
    name: 'HTTP Basic with a wrong secret',
    fields: () => ({}),
    headers: (app) => basic(app.clientId, 'not-the-secret'),
    status: 401,
    error: 'invalid_client',
  },
  {
    name: 'HTTP Basic naming an unknown client',
    fields: () => ({}),
    headers: (app) => basic('app_unknown000000000000000', app.clientSecret),
    status: 401,
    error: 'invalid_client',
  },
  {
    name: 'HTTP Basic that does not decode to id:secret',
    fields: () => ({}),
    headers: () => ({ authorization: 'Basic bm9jb2xvbg==' }),
    status: 401,
    error: 'invalid_client',
  },
  {
    name: 'an Authorization header of another scheme',
    fields: () => ({}),
    headers: (app) => ({ authorization: `Bearer ${app.clientSecret}` }),
    status: 401,
    error: 'invalid_client',
  },
  {
    name: 'no client credential at all',
    fields: () => ({}),
    status: 401,
    error: 'invalid_client',
  },
  {
    name: 'a client_id without its secret',
    fields: (app) => ({ client_id: app.clientId }),
    status: 401,
    error: 'invalid_client',
  },
  {
    name: 'a wrong secret in the form',
    fields: (app) => ({ client_id: app.clientId, client_secret: 'not-the-secret' }),
    status: 400,
    error: 'invalid_client',
  },
  {
    name: 'an unknown client_id in the form',
    fields: (app) => ({ client_id: 'app_unknown000000000000000', client_secret: app.clientSecret }),
    status: 400,
    error: 'invalid_client',
  },
  {
    name: 'a client_secret in the form without its client_id',
    fields: (app) => ({ client_secret: app.clientSecret }),
    status: 400,
    error: 'invalid_client',
  },
  {
    name: 'HTTP Basic and a form secret together (RFC 6749 §2.3: one method per request)',
    fields: (app) => ({ client_id: app.clientId, client_secret: app.clientSecret }),
    headers: (app) => basic(app.clientId, app.clientSecret),
    status: 400,
    error: 'invalid_request',
  },
];

describe('OAuth client authentication errors (RFC 6749 §5.2): 401 with a Basic challenge unless the secret came in the form', () => {
  let server: TestServer;
  let app: OAuthFixture;

  before(async () => {
    server = await startTestServer();
    app = await createOAuthFixture(server, 'client-auth');
  });
  after(() => server.close());

  const bodies: Record<Endpoint, (refreshToken: string) => Fields> = {
    '/oauth/token': (refreshToken) => ({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    '/oauth/revoke': (refreshToken) => ({ token: refreshToken }),
  };

  for (const endpoint of ['/oauth/token', '/oauth/revoke'] as const) {
    it(`${endpoint}: every failed client authentication is answered by how the secret was sent, and does nothing`, async () => {
      const tokens = await tokensFor(server, app);
      for (const failure of FAILURES) {
        const answer = await postTo(
          server,
          endpoint,
          { ...bodies[endpoint](tokens.refresh_token), ...failure.fields(app) },
          failure.headers?.(app) ?? {},
        );
        const what = `${failure.name}: ${JSON.stringify(answer.body)}`;
        assert.equal(answer.status, failure.status, what);
        assert.equal(answer.body.error, failure.error, what);
        assert.equal(typeof answer.body.error_description, 'string', what);
        assert.equal(answer.body.access_token, undefined, what);
        assert.match(answer.headers.get('cache-control') ?? '', /no-store/, failure.name);
        const challenge = answer.headers.get('www-authenticate');
        if (failure.status === 401) assert.match(challenge ?? '', BASIC_CHALLENGE, failure.name);
        else assert.equal(challenge, null, `${failure.name}: no challenge with a 400`);
      }
      assert.equal((await refresh(server, app, tokens.refresh_token)).status, 200, 'nothing was revoked');
    });
  }

  it('the right secret authenticates by HTTP Basic (client_secret_basic) and in the form (client_secret_post)', async () => {
    const tokens = await tokensFor(server, app);
    const fields = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token };
    const byBasic = await postTo(server, '/oauth/token', fields, basic(app.clientId, app.clientSecret));
    assert.equal(byBasic.status, 200, JSON.stringify(byBasic.body));
    const inForm = await postTo(server, '/oauth/token', {
      ...fields,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    });
    assert.equal(inForm.status, 200, JSON.stringify(inForm.body));
  });
});
