import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { bearer, createWorkspaceWithKey, type TestServer } from '../../support/test-server.ts';
import { assertError } from '../admin-support.ts';

/** The admin API's authentication cases, on the server of admin-api.test.ts. */
export function authenticationCases(serverOf: () => TestServer): void {
  describe('authentication', () => {
    let server: TestServer;
    before(() => {
      server = serverOf();
    });

    it('a request without Authorization answers 401 { error, message }', async () => {
      const response = await server.request('GET', '/admin/v1/workspaces');
      assertError(response, 401, 'unauthorized');
    });

    it('a wrong admin token answers 401 and changes nothing', async () => {
      const response = await server.request('POST', '/admin/v1/workspaces', {
        body: { slug: 'intruder' },
        headers: bearer(`${server.adminToken}x`),
      });
      assertError(response, 401, 'unauthorized');
      assert.equal((await server.admin('GET', '/workspaces/intruder')).status, 404);
    });

    it('a workspace API key is not an admin token: 401', async () => {
      const ws = await createWorkspaceWithKey(server, 'auth-key-not-admin');
      const response = await server.request('GET', '/admin/v1/workspaces', { headers: bearer(ws.key) });
      assertError(response, 401, 'unauthorized');
    });

    // Regression: adminAuth ran as a preHandler hook, after body parsing, so an unauthenticated request
    // with a bad or oversized body got 400/413 instead of 401.
    it('the admin token is checked before the body is read: a missing or wrong token answers 401 even for a bad or oversized body', async () => {
      for (const headers of [{}, bearer('wrong-token-wrong-token')]) {
        for (const body of ['{"slug": ', 'x'.repeat(2 * 1024 * 1024)]) {
          const response = await fetch(`${server.baseUrl}/admin/v1/workspaces`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body,
          });
          const json = (await response.json()) as { error: string };
          assert.equal(response.status, 401, `body of ${body.length} bytes: ${JSON.stringify(json)}`);
          assert.equal(json.error, 'unauthorized');
        }
      }
    });

    it('the right admin token is accepted', async () => {
      assert.equal((await server.admin('GET', '/workspaces')).status, 200);
    });
  });
}
