import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { type TestServer } from '../../support/test-server.ts';
import { assertError, assertInvalid, ULID } from '../admin-support.ts';

/** The admin API's tools cases, on the server of admin-api.test.ts. */
export function toolsCases(serverOf: () => TestServer): void {
  describe('tools', () => {
    let server: TestServer;
    before(() => {
      server = serverOf();
    });

    before(async () => {
      await server.admin('POST', '/workspaces', { slug: 'tools' });
    });

    it('POST answers 201 { id }; the list shows defaults and header names but not header values', async () => {
      const secretHeader = `Bearer tool-${randomBytes(8).toString('hex')}`;
      const created = await server.admin('POST', '/workspaces/tools/tools', {
        name: 'get_weather',
        description: 'Weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
        http: { url: 'https://127.0.0.1:9/weather', headers: { authorization: secretHeader } },
      });
      assert.equal(created.status, 201);
      assert.deepEqual(Object.keys(created.body), ['id']);
      assert.match(created.body.id, new RegExp(`^tool_${ULID}$`));

      const listed = await server.admin('GET', '/workspaces/tools/tools');
      assert.equal(listed.status, 200);
      assert.ok(!JSON.stringify(listed.body).includes(secretHeader), 'header values are not listed');
      const entry = listed.body.tools.find((tool: { id: string }) => tool.id === created.body.id);
      assert.equal(entry.name, 'get_weather');
      assert.equal(entry.http.url, 'https://127.0.0.1:9/weather');
      assert.equal(entry.http.method, 'POST', 'method defaults to POST');
      assert.deepEqual(entry.http.headers, ['authorization']);

      const minimal = await server.admin('POST', '/workspaces/tools/tools', {
        name: 'ping',
        http: { url: 'http://127.0.0.1:9/ping' },
      });
      assert.equal(minimal.status, 201);
    });

    it('tool names must match ^[a-zA-Z0-9_]{1,64}$', async () => {
      const http = { url: 'https://127.0.0.1:9/t' };
      for (const name of ['has-dash', 'has space', 'dotted.name', '', 'x'.repeat(65), 'émoji']) {
        assertInvalid(await server.admin('POST', '/workspaces/tools/tools', { name, http }), 'name');
      }
      for (const name of ['A_b_9', 'x'.repeat(64)]) {
        assert.equal(
          (await server.admin('POST', '/workspaces/tools/tools', { name, http })).status,
          201,
          name,
        );
      }
    });

    it('a duplicate tool name in the workspace answers 409 conflict', async () => {
      const body = { name: 'dup_tool', http: { url: 'https://127.0.0.1:9/t' } };
      assert.equal((await server.admin('POST', '/workspaces/tools/tools', body)).status, 201);
      assertError(await server.admin('POST', '/workspaces/tools/tools', body), 409, 'conflict');
    });

    it('bad tool input answers 400 invalid_request', async () => {
      const path = '/workspaces/tools/tools';
      assertInvalid(await server.admin('POST', path, { name: 'no_http' }), 'http');
      assertInvalid(
        await server.admin('POST', path, { name: 'bad_url', http: { url: 'not a url' } }),
        'http',
      );
      assertInvalid(
        await server.admin('POST', path, { name: 'bad_url', http: { url: 'file:///etc/passwd' } }),
        'http',
      );
      assertInvalid(
        await server.admin('POST', path, {
          name: 'bad_method',
          http: { url: 'https://127.0.0.1:9/', method: 'TRACE' },
        }),
        'http',
      );
      assertInvalid(
        await server.admin('POST', path, {
          name: 'bad_headers',
          http: { url: 'https://127.0.0.1:9/', headers: { a: 1 } },
        }),
        'http',
      );
      assertInvalid(
        await server.admin('POST', path, {
          name: 'bad_params',
          parameters: [],
          http: { url: 'https://127.0.0.1:9/' },
        }),
        'parameters',
      );
      assertInvalid(
        await server.admin('POST', path, {
          name: 'bad_extra',
          http: { url: 'https://127.0.0.1:9/' },
          kind: 'svc',
        }),
        'kind',
      );
    });

    it('DELETE answers 204, then 404', async () => {
      const created = await server.admin('POST', '/workspaces/tools/tools', {
        name: 'temp_tool',
        http: { url: 'https://127.0.0.1:9/' },
      });
      assert.equal((await server.admin('DELETE', `/workspaces/tools/tools/${created.body.id}`)).status, 204);
      assertError(
        await server.admin('DELETE', `/workspaces/tools/tools/${created.body.id}`),
        404,
        'not_found',
      );
      assertError(await server.admin('GET', '/workspaces/no-such-ws/tools'), 404, 'not_found');
    });
  });
}
