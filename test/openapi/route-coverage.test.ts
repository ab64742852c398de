import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registeredRoutes } from '../support/registered-routes.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * `METHOD /path/{param}` of every route the app registered, as the document writes them: Fastify's
 * `:param` as `{param}`, without the HEAD twins of GET routes and the trailing-slash twins of a
 * plugin's `/` route (the same handler under the same path).
 */
function registered(server: TestServer): string[] {
  const routes = registeredRoutes(server.service.app).map((route) => {
    const [method = '', path = ''] = route.split(' ');
    const bare = path.length > 1 ? path.replace(/\/$/, '') : path;
    return `${method} ${bare.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
  });
  const unique = [...new Set(routes)];
  return unique.filter((route) => !route.startsWith('HEAD ') || !unique.includes(`GET ${route.slice(5)}`));
}

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
    const routes = registered(server);
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
        registered(bare).filter((route) => route.includes('/admin/')),
        [],
      );
      assert.ok(!body.tags.some((tag: { name: string }) => tag.name === 'admin'));
    } finally {
      await bare.close();
    }
  });
});
