import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import type { OAuthTokenPrincipal } from '../../src/auth/principal.ts';
import type { OAuthScope } from '../../src/domain/oauth-scopes.ts';
import { requiresScopes, sendMissingScopes } from '../../src/http/plugins/required-scopes.ts';

/** An app with one route needing `scopes`, called by an access token holding `held`. */
async function callWith(held: OAuthScope[], ...scopes: OAuthScope[]) {
  const app = Fastify();
  const principal = { kind: 'oauth_token', scopes: held } as unknown as OAuthTokenPrincipal;
  app.get('/route', scopes.length > 0 ? requiresScopes(...scopes) : {}, async (request, reply) => {
    return sendMissingScopes(reply, principal, request.routeOptions.config.scopes) ?? { ok: true };
  });
  const response = await app.inject({ method: 'GET', url: '/route' });
  await app.close();
  return response;
}

describe('scopes required by a route', () => {
  it('a route needing several scopes names them all: required is an array, WWW-Authenticate lists them', async () => {
    const response = await callWith(['runs:write'], 'runs:write', 'sessions:write');
    assert.equal(response.statusCode, 403);
    assert.deepEqual(response.json().required, ['runs:write', 'sessions:write']);
    assert.equal(response.json().error, 'insufficient_scope');
    assert.match(response.json().message, /sessions:write/);
    assert.equal(
      response.headers['www-authenticate'],
      'Bearer error="insufficient_scope", scope="runs:write sessions:write"',
    );
  });

  it('a one-scope route names its scope as a string', async () => {
    const response = await callWith([], 'models:read');
    assert.equal(response.statusCode, 403);
    assert.equal(response.json().required, 'models:read');
  });

  it('holding every scope the route needs passes', async () => {
    const response = await callWith(['sessions:write', 'runs:write'], 'runs:write', 'sessions:write');
    assert.equal(response.statusCode, 200);
  });

  it('an API-keys-only route (an empty scope list) refuses access tokens: 403 insufficient_scope, required "api_key" (extensions)', async () => {
    const app = Fastify();
    const principal = { kind: 'oauth_token', scopes: ['runs:write'] } as unknown as OAuthTokenPrincipal;
    app.get('/route', { config: { scopes: [] } }, async (request, reply) => {
      return sendMissingScopes(reply, principal, request.routeOptions.config.scopes) ?? { ok: true };
    });
    const response = await app.inject({ method: 'GET', url: '/route' });
    await app.close();
    assert.equal(response.statusCode, 403);
    assert.equal(response.json().error, 'insufficient_scope');
    assert.equal(response.json().required, 'api_key');
  });

  it('a route that declares no scope is closed to access tokens', async () => {
    const response = await callWith(['runs:write']);
    assert.equal(response.statusCode, 403);
    assert.equal(response.json().error, 'forbidden');
  });
});
