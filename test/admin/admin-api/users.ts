import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { type TestServer } from '../../support/test-server.ts';
import { everyStoredValue, assertError, assertInvalid, ULID } from '../admin-support.ts';

/** The admin API's users cases, on the server of admin-api.test.ts. */
export function usersCases(serverOf: () => TestServer): void {
  describe('users', () => {
    let server: TestServer;
    before(() => {
      server = serverOf();
    });

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
}
