import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { createService, type Service } from '../../src/main.ts';
import { createTestDatabase, type TestDatabase } from '../support/engines.ts';
import { bearer, createWorkspaceWithKey, startTestServer, type TestServer } from '../support/test-server.ts';
import { assertError } from './admin-support.ts';

describe('admin API over HTTP', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('authentication', () => {
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

  it('no bad-input sample above made the server answer 500 (it still serves)', async () => {
    assert.equal((await server.admin('GET', '/workspaces')).status, 200);
    assert.equal((await server.request('GET', '/healthz')).status, 200);
  });
});

describe('admin API without AGENT_RUNS_ADMIN_TOKEN', () => {
  let database: TestDatabase;
  let service: Service;
  let baseUrl: string;

  before(async () => {
    database = await createTestDatabase('sqlite');
    const config = loadConfig({
      PORT: '0',
      DATABASE_URL: database.config.url,
      AGENT_RUNS_SECRET: randomBytes(32).toString('base64url'),
    });
    assert.equal(config.adminToken, undefined);
    service = await createService(config, { logger: pino({ level: 'silent' }), dev: false });
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await service.close();
    await database.drop();
  });

  it('admin routes are absent: 404 not_found with or without a bearer token, and nothing is created', async () => {
    for (const headers of [{}, bearer('any-token-at-all-0000')]) {
      const list = await fetch(`${baseUrl}/admin/v1/workspaces`, { headers });
      assert.equal(list.status, 404);
      assert.equal(((await list.json()) as { error: string }).error, 'not_found');
      const create = await fetch(`${baseUrl}/admin/v1/workspaces`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ slug: 'sneaky' }),
      });
      assert.equal(create.status, 404);
      await create.body?.cancel();
    }
    assert.equal(await service.resources.repos.workspaces.count(), 0);
    assert.equal((await fetch(`${baseUrl}/healthz`)).status, 200, 'the rest of the server works');
  });
});
