import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { createService, type Service } from '../../src/main.ts';
import { createTestDatabase, type TestDatabase } from '../support/engines.ts';
import { bearer, startTestServer, type TestServer } from '../support/test-server.ts';
import { authenticationCases } from './admin-api/authentication.ts';
import { workspacesCases } from './admin-api/workspaces.ts';
import { apiKeysCases } from './admin-api/api-keys.ts';
import { offeringsCases } from './admin-api/offerings.ts';
import { providersCases } from './admin-api/providers.ts';
import { agentsCases } from './admin-api/agents.ts';
import { toolsCases } from './admin-api/tools.ts';
import { usersCases } from './admin-api/users.ts';
import { oauthAppsCases } from './admin-api/oauth-apps.ts';

// One server for every resource (one process, one start): the cases of each resource are in admin-api/.
describe('admin API over HTTP', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());
  const serverOf = () => server;

  authenticationCases(serverOf);
  workspacesCases(serverOf);
  apiKeysCases(serverOf);
  offeringsCases(serverOf);
  providersCases(serverOf);
  agentsCases(serverOf);
  toolsCases(serverOf);
  usersCases(serverOf);
  oauthAppsCases(serverOf);

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
