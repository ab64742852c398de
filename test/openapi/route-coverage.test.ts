import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { documentedRouteKeys } from '../support/registered-routes.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is arbitrary JSON
function documented(document: any): string[] {
  return Object.entries<Record<string, unknown>>(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => METHODS.includes(key))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

describe('the OpenAPI document lists exactly the registered routes', { timeout: 60_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('every registered route is in the document with its method, and nothing in the document is unregistered', async () => {
    const { body } = await server.request('GET', '/openapi.json');
    const routes = documentedRouteKeys(server.service.app);
    const operations = documented(body);
    assert.deepEqual(
      routes.filter((route) => !operations.includes(route)),
      [],
      'registered routes missing from the document',
    );
    assert.deepEqual(
      operations.filter((operation) => !routes.includes(operation)),
      [],
      'operations of no registered route',
    );
    for (const route of [
      'GET /openapi.json',
      'GET /docs',
      'POST /admin/v1/workspaces',
      'POST /oauth/token',
    ]) {
      assert.ok(operations.includes(route), route);
    }
  });

  it('every registered route is described with describeRoute (no placeholder operations)', async () => {
    const { body } = await server.request('GET', '/openapi.json');
    const undescribed = Object.entries<Record<string, Record<string, unknown>>>(body.paths).flatMap(
      ([path, item]) =>
        Object.entries(item)
          .filter(([, operation]) => operation['x-undescribed'])
          .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    assert.deepEqual(undescribed, []);
  });

  it('without AGENT_RUNS_ADMIN_TOKEN the admin API is neither registered nor documented', async () => {
    const bare = await startTestServer({ env: { AGENT_RUNS_ADMIN_TOKEN: '' } });
    try {
      const { body } = await bare.request('GET', '/openapi.json');
      assert.deepEqual(
        documented(body).filter((operation) => operation.includes('/admin/')),
        [],
      );
      assert.deepEqual(
        documentedRouteKeys(bare.service.app).filter((route) => route.includes('/admin/')),
        [],
      );
      assert.ok(!body.tags.some((tag: { name: string }) => tag.name === 'admin'));
    } finally {
      await bare.close();
    }
  });
});
