import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { type TestServer } from '../../support/test-server.ts';
import { everyStoredValue, assertError, assertInvalid, ULID } from '../admin-support.ts';

/** The admin API's oauth-apps cases, on the server of admin-api.test.ts. */
export function oauthAppsCases(serverOf: () => TestServer): void {
  describe('oauth-apps', () => {
    let server: TestServer;
    before(() => {
      server = serverOf();
    });

    before(async () => {
      await server.admin('POST', '/workspaces', { slug: 'apps' });
    });

    it('POST answers 201 { clientId, clientSecret }; the secret is never listed nor stored in plaintext', async () => {
      const created = await server.admin('POST', '/workspaces/apps/oauth-apps', {
        name: 'Partner',
        redirectUris: ['https://127.0.0.1:9/callback'],
      });
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(created.body).sort(), ['clientId', 'clientSecret']);
      assert.match(created.body.clientId, new RegExp(`^app_${ULID}$`));
      assert.equal(typeof created.body.clientSecret, 'string');
      assert.ok(created.body.clientSecret.length >= 32, 'the client secret is long enough');

      const listed = await server.admin('GET', '/workspaces/apps/oauth-apps');
      assert.equal(listed.status, 200);
      assert.ok(!JSON.stringify(listed.body).includes(created.body.clientSecret));
      const entry = listed.body.oauthApps.find(
        (app: { clientId: string }) => app.clientId === created.body.clientId,
      );
      assert.ok(entry, 'the app is listed by clientId');
      assert.equal(entry.name, 'Partner');
      assert.deepEqual(entry.redirectUris, ['https://127.0.0.1:9/callback']);
      assert.equal(entry.clientSecret, undefined);
      assert.equal(entry.clientSecretHash, undefined);
      assert.ok(
        !(await everyStoredValue(server)).some((value) => value.includes(created.body.clientSecret)),
        'the client secret is stored hashed',
      );
    });

    it('bad oauth-app input answers 400 invalid_request', async () => {
      const path = '/workspaces/apps/oauth-apps';
      assertInvalid(await server.admin('POST', path, { redirectUris: ['https://127.0.0.1:9/cb'] }), 'name');
      assertInvalid(await server.admin('POST', path, { name: 'A' }), 'redirectUris');
      assertInvalid(await server.admin('POST', path, { name: 'A', redirectUris: [] }), 'redirectUris');
      assertInvalid(
        await server.admin('POST', path, { name: 'A', redirectUris: 'https://127.0.0.1:9/cb' }),
        'redirectUris',
      );
      assertInvalid(
        await server.admin('POST', path, { name: 'A', redirectUris: ['not a url'] }),
        'redirectUris',
      );
      assertInvalid(
        await server.admin('POST', path, { name: 'A', redirectUris: ['javascript:alert(1)'] }),
        'redirectUris',
      );
    });

    it('DELETE answers 204, then 404', async () => {
      const created = await server.admin('POST', '/workspaces/apps/oauth-apps', {
        name: 'Temp',
        redirectUris: ['https://127.0.0.1:9/cb'],
      });
      assert.equal(
        (await server.admin('DELETE', `/workspaces/apps/oauth-apps/${created.body.clientId}`)).status,
        204,
      );
      assert.deepEqual(
        (await server.admin('GET', '/workspaces/apps/oauth-apps')).body.oauthApps.filter(
          (app: { clientId: string }) => app.clientId === created.body.clientId,
        ),
        [],
      );
      assertError(
        await server.admin('DELETE', `/workspaces/apps/oauth-apps/${created.body.clientId}`),
        404,
        'not_found',
      );
      assertError(await server.admin('GET', '/workspaces/no-such-ws/oauth-apps'), 404, 'not_found');
    });
  });
}
