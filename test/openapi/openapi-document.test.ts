import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { runCliInProcess } from '../support/cli.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { embeddedOnly } from '../support/deployment.ts';

describe('GET /openapi.json: the OpenAPI 3.1 document', { timeout: 60_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('validates as OpenAPI 3.1 with @seriousme/openapi-schema-validator', async () => {
    const response = await server.request('GET', '/openapi.json');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    const validator = new Validator();
    const result = await validator.validate(response.body);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1));
    assert.equal(validator.version, '3.1');
    assert.equal(response.body.openapi, '3.1.0');
  });

  it('needs no credential and is cacheable: an ETag, and 304 when it is sent back', async () => {
    const first = await server.request('GET', '/openapi.json');
    assert.equal(first.status, 200);
    assert.match(first.headers.get('cache-control') ?? '', /^public, max-age=\d+$/);
    const etag = first.headers.get('etag');
    assert.ok(etag);
    const again = await server.request('GET', '/openapi.json', { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.body, undefined);
  });

  it('is built once: every request gets the same bytes', async () => {
    const [a, b] = await Promise.all([
      fetch(`${server.baseUrl}/openapi.json`),
      fetch(`${server.baseUrl}/openapi.json`),
    ]);
    assert.equal(await a.text(), await b.text());
  });

  it('every operation has a unique operationId, a summary and at least one tag', async () => {
    const { body } = await server.request('GET', '/openapi.json');
    const ids: string[] = [];
    for (const [path, item] of Object.entries<Record<string, Record<string, unknown>>>(body.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (operation['x-undescribed']) continue;
        assert.equal(typeof operation.operationId, 'string', `${method} ${path}`);
        assert.equal(typeof operation.summary, 'string', `${method} ${path}`);
        assert.ok(Array.isArray(operation.tags) && operation.tags.length > 0, `${method} ${path}`);
        ids.push(operation.operationId as string);
      }
    }
    assert.deepEqual(
      ids.filter((id, index) => ids.indexOf(id) !== index),
      [],
      'duplicate operationIds',
    );
  });

  it('names the SSE run event union and the bodies the client SDK uses as components', async () => {
    const { body } = await server.request('GET', '/openapi.json');
    const schemas = body.components.schemas as Record<string, Record<string, unknown>>;
    for (const name of [
      'RunEvent',
      'AssistantDeltaEvent',
      'RunErrorEvent',
      'CancelledEvent',
      'RunCreateRequest',
      'RunCreated',
      'RunSnapshot',
      'SessionReplay',
      'ErrorBody',
      'InsufficientScopeError',
      'ToolRef',
    ]) {
      assert.ok(schemas[name], `components.schemas.${name}`);
    }
    const union = schemas.RunEvent as {
      oneOf: unknown[];
      discriminator: { propertyName: string; mapping: object };
    };
    assert.equal(union.oneOf.length, 15);
    assert.equal(union.discriminator.propertyName, 'type');
    assert.equal(Object.keys(union.discriminator.mapping).length, 15);
    const stream = body.paths['/api/v1/workspaces/{workspaceSlug}/agent-runs/{runId}/stream'].get;
    assert.deepEqual(stream.responses['200'].content['text/event-stream'].schema, {
      $ref: '#/components/schemas/RunEvent',
    });
  });

  it('without AGENT_RUNS_PUBLIC_URL the server and OAuth URLs are relative to where the document is served', async () => {
    const { body } = await server.request('GET', '/openapi.json');
    assert.deepEqual(
      body.servers.map((entry: { url: string }) => entry.url),
      ['/'],
    );
    assert.equal(
      body.components.securitySchemes.oauth2.flows.authorizationCode.authorizationUrl,
      '/oauth/authorize',
    );
  });
});

describe('the OpenAPI document with AGENT_RUNS_PUBLIC_URL', { timeout: 60_000 }, () => {
  it('names the public URL as the server and the base of the OAuth URLs', async () => {
    const server = await startTestServer({ env: { AGENT_RUNS_PUBLIC_URL: 'https://agents.example.com/' } });
    try {
      const { body } = await server.request('GET', '/openapi.json');
      assert.equal(body.servers[0].url, 'https://agents.example.com');
      const flow = body.components.securitySchemes.oauth2.flows.authorizationCode;
      assert.equal(flow.authorizationUrl, 'https://agents.example.com/oauth/authorize');
      assert.equal(flow.tokenUrl, 'https://agents.example.com/oauth/token');
      assert.deepEqual(Object.keys(flow.scopes).sort(), [
        'feedback:read',
        'feedback:write',
        'models:read',
        'runs:read',
        'runs:write',
        'sessions:read',
        'sessions:write',
        'svc.identity:read',
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('agent-runs openapi', { ...embeddedOnly('the document is the same on every deployment') }, () => {
  it('prints, without a server or a database, the document a server with the admin API serves', async () => {
    const printed = await runCliInProcess(['openapi'], {});
    assert.equal(printed.code, 0, printed.stderr);
    const document = JSON.parse(printed.stdout);
    const server = await startTestServer();
    try {
      const served = await server.request('GET', '/openapi.json');
      assert.deepEqual(document, served.body);
    } finally {
      await server.close();
    }
  });

  it('--public-url sets the server URL; unknown arguments are a usage error (exit 2)', async () => {
    const printed = await runCliInProcess(['openapi', '--public-url', 'https://api.example.com'], {});
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(JSON.parse(printed.stdout).servers[0].url, 'https://api.example.com');
    const refused = await runCliInProcess(['openapi', '--format', 'yaml'], {});
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /usage: agent-runs openapi/);
  });
});
