import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OAUTH_SCOPE_NAMES } from '../../src/domain/oauth-scopes.ts';
import { createOAuthFixture, obtainTokens, type OAuthFixture } from '../support/oauth-flow.ts';
import { bearer, startTestServer, type TestServer } from '../support/test-server.ts';
import type { OpenApiJson } from './document-conformance.ts';

interface DocumentedOperation {
  method: string;
  path: string;
  security: Array<Record<string, string[]>>;
  /** The scopes an access token needs, from the oauth2 requirement; undefined when tokens are not taken. */
  scopes: string[] | undefined;
}

function operationsOf(document: OpenApiJson): DocumentedOperation[] {
  return Object.entries<Record<string, OpenApiJson>>(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => {
      const security = (operation.security ?? []) as Array<Record<string, string[]>>;
      return {
        method: method.toUpperCase(),
        path,
        security,
        scopes: security.find((requirement) => requirement.oauth2)?.oauth2,
      };
    }),
  );
}

/** A request path for the template: the fixture's workspace, made-up ids (the checks run before any lookup). */
function concrete(path: string, slug: string): string {
  return path
    .replace('{workspaceSlug}', slug)
    .replace('{slug}', slug)
    .replace(/\{[A-Za-z]+\}/g, 'doc_check_id');
}

describe('the security the document lists is the one the routes enforce', { timeout: 120_000 }, () => {
  let server: TestServer;
  let fixture: OAuthFixture;
  let second: OAuthFixture;
  let operations: DocumentedOperation[];
  /** Tokens by scope set, each obtained once (sign-in allows 10 attempts a minute per person). */
  const tokens = new Map<string, Promise<Record<string, string>>>();
  const tokenWith = (scopes: readonly string[], person: OAuthFixture) => {
    const scope = [...scopes].sort().join(' ');
    let token = tokens.get(scope);
    if (!token) {
      token = obtainTokens(server, person, { scope }).then((body) => bearer(body.access_token));
      tokens.set(scope, token);
    }
    return token;
  };
  const allBut = (scope: string) =>
    tokenWith(
      OAUTH_SCOPE_NAMES.filter((name) => name !== scope),
      second,
    );

  before(async () => {
    server = await startTestServer();
    fixture = await createOAuthFixture(server, 'documented');
    // A second person of the same workspace signs in for the other half of the tokens.
    second = { ...fixture, email: `second@${fixture.slug}.example` };
    const created = await server.admin('POST', `/workspaces/${fixture.slug}/users`, {
      email: second.email,
      password: second.password,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    operations = operationsOf((await server.request('GET', '/openapi.json')).body);
  });
  after(() => server.close());

  it('each workspace route refuses a token missing any documented scope with 403 insufficient_scope naming exactly the documented scopes', async () => {
    const scoped = operations.filter((operation) => operation.scopes && operation.scopes.length > 0);
    assert.ok(scoped.length >= 15, `${scoped.length} scoped operations`);
    for (const operation of scoped) {
      const documented = operation.scopes as string[];
      for (const scope of documented) {
        const response = await server.request(operation.method, concrete(operation.path, fixture.slug), {
          headers: await allBut(scope),
        });
        const where = `${operation.method} ${operation.path} without ${scope}`;
        assert.equal(response.status, 403, `${where}: ${JSON.stringify(response.body)}`);
        assert.equal(response.body.error, 'insufficient_scope', where);
        assert.deepEqual(response.body.required, documented.length === 1 ? documented[0] : documented, where);
      }
    }
  });

  it('each workspace route lets a token holding exactly its documented scopes past the scope check', async () => {
    for (const operation of operations.filter(
      (candidate) => candidate.scopes && candidate.scopes.length > 0,
    )) {
      const response = await server.request(operation.method, concrete(operation.path, fixture.slug), {
        headers: await tokenWith(operation.scopes as string[], fixture),
      });
      assert.notEqual(
        response.body?.error,
        'insufficient_scope',
        `${operation.method} ${operation.path} with ${operation.scopes?.join(' ')}: ${JSON.stringify(response.body)}`,
      );
      assert.notEqual(response.status, 401, `${operation.method} ${operation.path}`);
    }
  });

  it('the documented scopes are the OAuth scopes of the service, every one used by some route', () => {
    const used = new Set(operations.flatMap((operation) => operation.scopes ?? []));
    assert.deepEqual([...used].sort(), [...OAUTH_SCOPE_NAMES].sort());
  });

  it('an operation documenting a security scheme answers 401 without a credential; one documenting none does not', async () => {
    for (const operation of operations) {
      const response = await server.request(operation.method, concrete(operation.path, fixture.slug));
      const where = `${operation.method} ${operation.path}: ${response.status} ${JSON.stringify(response.body)?.slice(0, 200)}`;
      if (operation.security.length > 0) assert.equal(response.status, 401, where);
      else assert.notEqual(response.status, 401, where);
    }
  });
});
