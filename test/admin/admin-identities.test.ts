import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { everyStoredValue, assertError, assertInvalid, ULID } from './admin-support.ts';

describe('admin API over HTTP', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('users', () => {
    before(async () => {
      await server.admin('POST', '/workspaces', { slug: 'users' });
    });

    it('POST answers 201 { id }; the list never shows the password or its hash', async () => {
      const password = `pw-${randomBytes(8).toString('hex')}`;
      const created = await server.admin('POST', '/workspaces/users/users', {
        email: 'Ada@Example.test',
        password,
        name: 'Ada',
      });
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(created.body), ['id']);
      assert.match(created.body.id, new RegExp(`^usr_${ULID}$`));

      const listed = await server.admin('GET', '/workspaces/users/users');
      assert.equal(listed.status, 200);
      const text = JSON.stringify(listed.body);
      assert.ok(!text.includes(password));
      assert.ok(!/password/i.test(text), 'no password field is listed');
      const entry = listed.body.users.find((user: { id: string }) => user.id === created.body.id);
      assert.equal(entry.email, 'ada@example.test');
      assert.equal(entry.name, 'Ada');
      assert.ok(
        !(await everyStoredValue(server)).some((value) => value.includes(password)),
        'the password is stored hashed',
      );
    });

    it('a duplicate email in the workspace answers 409 conflict', async () => {
      assert.equal(
        (
          await server.admin('POST', '/workspaces/users/users', {
            email: 'dup@example.test',
            password: 'password1',
          })
        ).status,
        201,
      );
      assertError(
        await server.admin('POST', '/workspaces/users/users', {
          email: 'DUP@example.test',
          password: 'password2',
        }),
        409,
        'conflict',
      );
    });

    it('bad user input answers 400 invalid_request', async () => {
      const path = '/workspaces/users/users';
      assertInvalid(await server.admin('POST', path, { password: 'password1' }), 'email');
      assertInvalid(
        await server.admin('POST', path, { email: 'not-an-email', password: 'password1' }),
        'email',
      );
      assertInvalid(
        await server.admin('POST', path, { email: 'short@example.test', password: 'short' }),
        'password',
      );
      assertInvalid(
        await server.admin('POST', path, { email: 'num@example.test', password: 12345678 }),
        'password',
      );
      assertInvalid(
        await server.admin('POST', path, {
          email: 'role@example.test',
          password: 'password1',
          role: 'admin',
        }),
        'role',
      );
    });

    it('DELETE answers 204, then 404', async () => {
      const created = await server.admin('POST', '/workspaces/users/users', {
        email: 'gone@example.test',
        password: 'password1',
      });
      assert.equal((await server.admin('DELETE', `/workspaces/users/users/${created.body.id}`)).status, 204);
      assertError(
        await server.admin('DELETE', `/workspaces/users/users/${created.body.id}`),
        404,
        'not_found',
      );
      assertError(await server.admin('GET', '/workspaces/no-such-ws/users'), 404, 'not_found');
    });
  });

  describe('oauth-apps', () => {
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

  it('no bad-input sample above made the server answer 500 (it still serves)', async () => {
    assert.equal((await server.admin('GET', '/workspaces')).status, 200);
    assert.equal((await server.request('GET', '/healthz')).status, 200);
  });
});
