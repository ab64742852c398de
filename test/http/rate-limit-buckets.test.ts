import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { workspaceBucketOf, type JsonRpcMethodBuckets } from '../../src/http/openapi/route-bucket.ts';
import { documentedRouteKeys } from '../support/registered-routes.ts';
import { bearer, createWorkspaceWithKey, startTestServer, type TestServer } from '../support/test-server.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const workspaceBucket = z.enum(['run_start', 'lifecycle', 'other_mutations', 'transport']);
/** What a route may declare as its bucket, as the document publishes it. */
const jsonRpcMethodBuckets = z.strictObject({
  byJsonRpcMethod: z.record(z.string(), workspaceBucket),
  otherwise: workspaceBucket,
});
const publishedBucket = z.union([
  workspaceBucket,
  jsonRpcMethodBuckets,
  z.strictObject({ ownLimit: z.string().min(1), per: z.string().min(1) }),
  z.strictObject({ unmetered: z.string().min(1) }),
]);

type Operation = { method: string; path: string; bucket: unknown };

/** Every operation of the document with its `x-rate-limit-bucket` (undefined when it has none). */
function operationsOf(document: {
  paths: Record<string, Record<string, Record<string, unknown>>>;
}): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        bucket: operation['x-rate-limit-bucket'],
      })),
  );
}

describe(
  'every route declares its rate-limit bucket, and the document publishes it',
  { timeout: 60_000 },
  () => {
    let server: TestServer;
    let operations: Operation[];
    let ws: Awaited<ReturnType<typeof createWorkspaceWithKey>>;

    before(async () => {
      server = await startTestServer();
      ws = await createWorkspaceWithKey(server, 'buckets');
      const { body } = await server.request('GET', '/openapi.json');
      operations = operationsOf(body);
    });
    after(() => server.close());

    const pathOf = (path: string) =>
      path
        .replace('{workspaceSlug}', ws.slug)
        .replace('{runId}', 'run_unknown')
        .replace('{sessionId}', 'ses_unknown')
        .replace('{agentSlug}', 'no-such-agent');

    it('each registered route publishes x-rate-limit-bucket: a workspace bucket, JSON-RPC method buckets, its own limit, or unmetered with the reason', () => {
      const routes = documentedRouteKeys(server.service.app);
      assert.ok(routes.length > 40, `${routes.length} routes registered`);
      const undeclared = routes.filter((route) => {
        const operation = operations.find(({ method, path }) => `${method} ${path}` === route);
        return operation === undefined || !publishedBucket.safeParse(operation.bucket).success;
      });
      assert.deepEqual(undeclared, [], 'routes without a valid x-rate-limit-bucket');
    });

    it('a request to a metered workspace route counts in the bucket its route publishes (X-RateLimit-Bucket)', async () => {
      const metered = operations.flatMap(({ method, path, bucket }) => {
        const parsed = workspaceBucket.safeParse(bucket);
        return parsed.success ? [{ method, path, bucket: parsed.data }] : [];
      });
      assert.ok(metered.length >= 15, `${metered.length} routes in a workspace bucket`);
      const counted = await Promise.all(
        metered.map(async ({ method, path }) => {
          const response = await server.request(method, pathOf(path), {
            headers: bearer(ws.key),
            ...(method === 'POST' && { body: {} }),
          });
          return `${method} ${path} ${response.headers.get('x-ratelimit-bucket')}`;
        }),
      );
      assert.deepEqual(
        counted,
        metered.map(({ method, path, bucket }) => `${method} ${path} ${bucket}`),
      );
    });

    it('an A2A call counts in the bucket its JSON-RPC method is published with, any other method in `otherwise`', async () => {
      const call = operations.find(
        (operation) => operation.path.startsWith('/api/a2a/') && operation.method === 'POST',
      );
      assert.ok(call);
      const declared = jsonRpcMethodBuckets.parse(call.bucket);
      const methods = [...Object.keys(declared.byJsonRpcMethod), 'tasks/pushNotificationConfig/get'];
      const counted = [];
      for (const method of methods) {
        const response = await server.request('POST', pathOf(call.path), {
          headers: bearer(ws.key),
          body: { jsonrpc: '2.0', id: 1, method, params: { id: 'task_unknown' } },
        });
        counted.push(`${method} ${response.headers.get('x-ratelimit-bucket')}`);
      }
      assert.deepEqual(
        counted,
        methods.map((method) => `${method} ${declared.byJsonRpcMethod[method] ?? declared.otherwise}`),
      );
    });

    it("the HEAD twin of a GET route counts in the GET route's bucket", async () => {
      const response = await fetch(`${server.baseUrl}${ws.ws}/models`, {
        method: 'HEAD',
        headers: bearer(ws.key),
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('x-ratelimit-bucket'), 'transport');
    });

    it('unmetered routes carry no X-RateLimit headers', async () => {
      const unmetered = operations.filter(
        ({ method, path, bucket }) =>
          method === 'GET' &&
          !path.includes('{') &&
          typeof bucket === 'object' &&
          bucket !== null &&
          'unmetered' in bucket,
      );
      assert.ok(unmetered.some(({ path }) => path === '/healthz'));
      assert.ok(unmetered.some(({ path }) => path.startsWith('/admin/')));
      for (const { path } of unmetered) {
        const response = path.startsWith('/admin/v1')
          ? await server.admin('GET', path.slice('/admin/v1'.length))
          : await server.request('GET', path);
        assert.equal(response.headers.get('x-ratelimit-bucket'), null, path);
        assert.equal(response.headers.get('x-ratelimit-limit'), null, path);
      }
    });
  },
);

describe('workspaceBucketOf: the bucket a request counts in, from its route declaration', () => {
  const a2a: JsonRpcMethodBuckets = {
    byJsonRpcMethod: { 'message/send': 'run_start', 'tasks/get': 'transport' },
    otherwise: 'other_mutations',
  };
  const noMethod = () => undefined;

  it('a workspace bucket is the bucket of every request', () => {
    assert.equal(workspaceBucketOf('lifecycle', noMethod), 'lifecycle');
  });

  it('JSON-RPC method buckets: the named method, else otherwise (also with no method, or one named like an object property)', () => {
    assert.equal(
      workspaceBucketOf(a2a, () => 'message/send'),
      'run_start',
    );
    assert.equal(workspaceBucketOf(a2a, noMethod), 'other_mutations');
    for (const method of ['toString', '__proto__', 'constructor', 'tasks/cancel']) {
      assert.equal(
        workspaceBucketOf(a2a, () => method),
        'other_mutations',
        method,
      );
    }
  });

  it('a route with its own limit or none counts in no workspace bucket', () => {
    assert.equal(workspaceBucketOf({ ownLimit: 'oauth_token', per: 'OAuth client' }, noMethod), undefined);
    assert.equal(workspaceBucketOf({ unmetered: 'a probe' }, noMethod), undefined);
  });
});
