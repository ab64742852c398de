import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OAUTH_SCOPE_NAMES, type OAuthScope } from '../../src/domain/oauth-scopes.ts';
import { createOAuthFixture, obtainTokens, type OAuthFixture } from '../support/oauth-flow.ts';
import { openSse, readAll, readToEnd } from '../support/sse-client.ts';
import { bearer, startTestServer, type TestResponse, type TestServer } from '../support/test-server.ts';
import { registeredRoutes } from '../support/registered-routes.ts';

const WS = '/api/v1/workspaces/:workspaceSlug';

/** What the tests share: the server, the workspace's API key, and resources made with it. */
interface Context {
  server: TestServer;
  fixture: OAuthFixture;
  key: Record<string, string>;
  /** A run that has ended (the offline mock model answered it). */
  endedRunId: string;
  /** A session that stays open. */
  sessionId: string;
}

/**
 * A request that passes the route's scope check, made with `auth`: what it needs is prepared with the
 * API key; `check` asserts the real answer (and cleans up what the request started).
 */
type Allowed = (
  context: Context,
  auth: Record<string, string>,
) => Promise<{ response: TestResponse; expected: number }>;

interface Row {
  method: 'GET' | 'POST' | 'DELETE';
  pattern: string;
  scope: OAuthScope;
  /** A body the route accepts (sent on the refused request too: the scope check comes before the body). */
  body?: unknown;
  allowed: Allowed;
}

const RUN = { systemPrompt: 's', prompt: 'hello' };
const MCP_TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

/** The AG-UI endpoint (extensions §11), with the scope of run creation. */
const AG_UI = '/api/ag-ui/:workspaceSlug/agents/:agentSlug';
const AG_UI_AGENT = 'helper';
/** A new thread each time: its session is never busy. */
const AG_UI_INPUT = {
  get threadId() {
    return crypto.randomUUID();
  },
  runId: 'r1',
  messages: [{ id: 'm1', role: 'user', content: 'hello' }],
};

function concreteAgUi(context: Context): string {
  return AG_UI.replace(':workspaceSlug', context.fixture.slug).replace(':agentSlug', AG_UI_AGENT);
}

/** The spec's scope table: one row per route that takes a workspace credential. */
const ROWS: Row[] = [
  {
    method: 'GET',
    pattern: `${WS}/models`,
    scope: 'models:read',
    allowed: async (context, auth) => ({
      response: await call(context, 'GET', '/models', auth),
      expected: 200,
    }),
  },
  {
    method: 'POST',
    pattern: `${WS}/agent-runs`,
    scope: 'runs:write',
    body: RUN,
    allowed: async (context, auth) => {
      const response = await call(context, 'POST', '/agent-runs', auth, RUN);
      if (response.status === 202) await readRun(context, response.body.runId as string);
      return { response, expected: 202 };
    },
  },
  {
    method: 'GET',
    pattern: `${WS}/agent-runs`,
    scope: 'runs:read',
    allowed: async (context, auth) => {
      const response = await call(context, 'GET', '/agent-runs', auth);
      assert.ok(Array.isArray(response.body.runs), 'the runs list answers { runs, nextCursor }');
      return { response, expected: 200 };
    },
  },
  {
    method: 'GET',
    pattern: `${WS}/agent-runs/:runId`,
    scope: 'runs:read',
    allowed: async (context, auth) => {
      const response = await call(context, 'GET', `/agent-runs/${context.endedRunId}`, auth);
      assert.equal(response.body.runId ?? response.body.id, context.endedRunId);
      return { response, expected: 200 };
    },
  },
  {
    method: 'GET',
    pattern: `${WS}/agent-runs/:runId/stream`,
    scope: 'runs:read',
    allowed: async (context, auth) => {
      const url = `${context.server.baseUrl}${context.fixture.ws}/agent-runs/${context.endedRunId}/stream`;
      const stream = await openSse(url, auth);
      if (stream.status === 200) {
        // The run has ended: its stream replays every event, ends with the result, and closes.
        const frames = await readToEnd(stream, url);
        assert.equal(frames.at(-1)?.data.type, 'result');
      } else stream.close();
      return {
        response: { status: stream.status, headers: stream.headers, body: undefined },
        expected: 200,
      };
    },
  },
  {
    method: 'POST',
    pattern: `${WS}/agent-runs/:runId/tool-results`,
    scope: 'runs:write',
    body: { toolUseId: 'toolu_unknown', result: 'r' },
    allowed: async (context, auth) => {
      // A run waiting on a local tool call: the mock model calls `lookup` when asked to.
      const created = await call(context, 'POST', '/agent-runs', context.key, {
        systemPrompt: 's',
        prompt: 'call lookup {"q":"x"}',
        tools: [{ kind: 'local', name: 'lookup', parameters: { type: 'object' } }],
      });
      assert.equal(created.status, 202, JSON.stringify(created.body));
      const runId = created.body.runId as string;
      const url = `${context.server.baseUrl}${created.body.streamUrl as string}`;
      const stream = await openSse(url, context.key);
      let response: TestResponse | undefined;
      const frames = await readToEnd(stream, url, {
        onFrame: async (frame) => {
          if (frame.data.type !== 'local_tool_call') return;
          response = await call(context, 'POST', `/agent-runs/${runId}/tool-results`, auth, {
            toolUseId: frame.data.data.toolUseId,
            result: 'x is here',
          });
          // Refused: end the run so the stream ends.
          if (response.status !== 200)
            await call(context, 'POST', `/agent-runs/${runId}/cancel`, context.key);
        },
      });
      assert.ok(response, `the run called its local tool: ${frames.map((f) => f.data.type).join(',')}`);
      if (response.status === 200)
        assert.deepEqual(response.body, { toolUseId: response.body.toolUseId, accepted: true });
      return { response, expected: 200 };
    },
  },
  {
    method: 'POST',
    pattern: `${WS}/agent-runs/:runId/cancel`,
    scope: 'runs:write',
    allowed: async (context, auth) => {
      const response = await call(context, 'POST', `/agent-runs/${context.endedRunId}/cancel`, auth);
      if (response.status === 200)
        assert.deepEqual(response.body, { runId: context.endedRunId, status: 'succeeded' });
      return { response, expected: 200 };
    },
  },
  {
    method: 'POST',
    pattern: `${WS}/agent-runs/:runId/feedback`,
    scope: 'feedback:write',
    body: { verdict: 'UP' },
    allowed: async (context, auth) => {
      // A run of its own: its first verdict is created (201).
      const runId = await endedRun(context);
      const response = await call(context, 'POST', `/agent-runs/${runId}/feedback`, auth, { verdict: 'UP' });
      return { response, expected: 201 };
    },
  },
  {
    method: 'POST',
    pattern: `${WS}/agent-sessions`,
    scope: 'sessions:write',
    body: { systemPrompt: 's' },
    allowed: async (context, auth) => ({
      response: await call(context, 'POST', '/agent-sessions', auth, { systemPrompt: 's' }),
      expected: 201,
    }),
  },
  {
    method: 'GET',
    pattern: `${WS}/agent-sessions`,
    scope: 'sessions:read',
    allowed: async (context, auth) => ({
      response: await call(context, 'GET', '/agent-sessions', auth),
      expected: 200,
    }),
  },
  {
    method: 'GET',
    pattern: `${WS}/agent-sessions/:sessionId`,
    scope: 'sessions:read',
    allowed: async (context, auth) => {
      const response = await call(context, 'GET', `/agent-sessions/${context.sessionId}`, auth);
      if (response.status === 200) assert.equal(response.body.sessionId, context.sessionId);
      return { response, expected: 200 };
    },
  },
  {
    method: 'GET',
    pattern: `${WS}/agent-sessions/:sessionId/events`,
    scope: 'sessions:read',
    allowed: async (context, auth) => ({
      response: await call(context, 'GET', `/agent-sessions/${context.sessionId}/events`, auth),
      expected: 200,
    }),
  },
  {
    method: 'POST',
    pattern: `${WS}/agent-sessions/:sessionId/messages`,
    scope: 'sessions:write',
    body: { prompt: 'hello' },
    allowed: async (context, auth) => {
      const sessionId = await freshSession(context);
      const response = await call(context, 'POST', `/agent-sessions/${sessionId}/messages`, auth, {
        prompt: 'hello',
      });
      if (response.status === 202) await readRun(context, response.body.runId as string);
      return { response, expected: 202 };
    },
  },
  {
    method: 'DELETE',
    pattern: `${WS}/agent-sessions/:sessionId`,
    scope: 'sessions:write',
    allowed: async (context, auth) => {
      const sessionId = await freshSession(context);
      const response = await call(context, 'DELETE', `/agent-sessions/${sessionId}`, auth);
      if (response.status === 200) assert.equal(response.body.sessionId, sessionId);
      return { response, expected: 200 };
    },
  },
  {
    method: 'GET',
    pattern: `${WS}/reply-feedback`,
    scope: 'feedback:read',
    allowed: async (context, auth) => ({
      response: await call(context, 'GET', '/reply-feedback', auth),
      expected: 200,
    }),
  },
  {
    method: 'POST',
    pattern: AG_UI,
    scope: 'runs:write',
    body: AG_UI_INPUT,
    allowed: async (context, auth) => ({
      response: await context.server.request('POST', concreteAgUi(context), {
        headers: auth,
        body: AG_UI_INPUT,
      }),
      expected: 200,
    }),
  },
  {
    method: 'GET',
    pattern: '/api/oauth/userinfo',
    scope: 'svc.identity:read',
    allowed: async (context, auth) => {
      const response = await context.server.request('GET', '/api/oauth/userinfo', { headers: auth });
      if (response.status === 200) {
        // The person who signed in; an API key identifies no one.
        const sub = auth === context.key ? null : context.fixture.userId;
        assert.deepEqual(
          { sub: response.body.sub, workspaceSlug: response.body.workspaceSlug },
          { sub, workspaceSlug: context.fixture.slug },
        );
      }
      return { response, expected: 200 };
    },
  },
  ...['/api/mcp/:workspaceSlug', '/api/mcp/:workspaceSlug/'].flatMap((pattern): Row[] => [
    {
      method: 'POST',
      pattern,
      scope: 'runs:write',
      body: MCP_TOOLS_LIST,
      allowed: async (context, auth) => {
        const response = await context.server.request('POST', concrete({ pattern } as Row, context), {
          headers: { ...auth, accept: 'application/json, text/event-stream' },
          body: MCP_TOOLS_LIST,
        });
        return { response, expected: 200 };
      },
    },
    ...(['GET', 'DELETE'] as const).map((method): Row => ({
      method,
      pattern,
      scope: 'runs:write',
      // The stateless MCP server offers neither a standalone stream nor a session to end.
      allowed: async (context, auth) => ({
        response: await context.server.request(method, concrete({ pattern } as Row, context), {
          headers: auth,
        }),
        expected: 405,
      }),
    })),
  ]),
];

/** A workspace route called with `auth` (the path is under the fixture's workspace). */
function call(
  context: Context,
  method: string,
  path: string,
  auth: Record<string, string>,
  body?: unknown,
): Promise<TestResponse> {
  return context.server.request(method, `${context.fixture.ws}${path}`, {
    headers: auth,
    ...(body !== undefined && { body }),
  });
}

/** Reads a run's stream to its end with the API key: the run has ended when this returns. */
async function readRun(context: Context, runId: string): Promise<void> {
  const frames = await readAll(
    `${context.server.baseUrl}${context.fixture.ws}/agent-runs/${runId}/stream`,
    context.key,
  );
  assert.ok(frames.at(-1), `run ${runId} streamed its events`);
}

async function endedRun(context: Context): Promise<string> {
  const created = await call(context, 'POST', '/agent-runs', context.key, RUN);
  assert.equal(created.status, 202, JSON.stringify(created.body));
  await readRun(context, created.body.runId as string);
  return created.body.runId as string;
}

async function freshSession(context: Context): Promise<string> {
  const created = await call(context, 'POST', '/agent-sessions', context.key, { systemPrompt: 's' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.sessionId as string;
}

/** The route's path with real ids in place of its parameters. */
function concrete(row: Row, context: Context): string {
  return row.pattern
    .replace(':workspaceSlug', context.fixture.slug)
    .replace(':runId', context.endedRunId)
    .replace(':sessionId', context.sessionId)
    .replace(':agentSlug', AG_UI_AGENT);
}

/**
 * Routes the extensions mark "API keys only" (webhooks, schedules): no scope opens them to an OAuth token, which
 * gets `403 insufficient_scope` with `required: "api_key"`.
 */
const API_KEYS_ONLY: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; pattern: string }[] = [
  { method: 'POST', pattern: `${WS}/webhooks` },
  { method: 'GET', pattern: `${WS}/webhooks` },
  { method: 'GET', pattern: `${WS}/webhooks/:webhookId` },
  { method: 'PATCH', pattern: `${WS}/webhooks/:webhookId` },
  { method: 'DELETE', pattern: `${WS}/webhooks/:webhookId` },
  { method: 'GET', pattern: `${WS}/webhooks/:webhookId/deliveries` },
  { method: 'POST', pattern: `${WS}/webhooks/:webhookId/deliveries/:deliveryId/retry` },
  { method: 'POST', pattern: `${WS}/schedules` },
  { method: 'GET', pattern: `${WS}/schedules` },
  { method: 'GET', pattern: `${WS}/schedules/:scheduleId` },
  { method: 'PATCH', pattern: `${WS}/schedules/:scheduleId` },
  { method: 'DELETE', pattern: `${WS}/schedules/:scheduleId` },
  { method: 'GET', pattern: `${WS}/schedules/:scheduleId/runs` },
];

describe('OAuth scopes: every workspace route and userinfo requires its scope from the spec table', () => {
  const context = {} as Context;
  /**
   * Tokens by scope set (sorted, space-separated): each obtained once, reused by every test. Sign-in
   * allows 10 attempts a minute per account: the single-scope tokens are the fixture's person's, the
   * all-but-one tokens a second person's.
   */
  const tokens = new Map<string, Promise<Record<string, string>>>();
  const tokenWith = (scopes: readonly OAuthScope[], fixture: OAuthFixture) => {
    const scope = [...scopes].sort().join(' ');
    let token = tokens.get(scope);
    if (!token) {
      token = obtainTokens(context.server, fixture, { scope }).then((body) => {
        assert.deepEqual(body.scope.split(' ').sort(), scope.split(' '));
        return bearer(body.access_token);
      });
      tokens.set(scope, token);
    }
    return token;
  };
  const only = (scope: OAuthScope) => tokenWith([scope], context.fixture);
  const allBut = (scope: OAuthScope) =>
    tokenWith(
      OAUTH_SCOPE_NAMES.filter((name) => name !== scope),
      { ...context.fixture, email: `other@${context.fixture.slug}.example` },
    );

  before(async () => {
    // Dev mode: the offline mock model answers runs (and calls local tools on request).
    context.server = await startTestServer({ dev: true });
    context.fixture = await createOAuthFixture(context.server, 'scoped');
    const key = await context.server.admin('POST', `/workspaces/${context.fixture.slug}/api-keys`, {});
    assert.equal(key.status, 201, JSON.stringify(key.body));
    context.key = bearer(key.body.key as string);
    const other = await context.server.admin('POST', `/workspaces/${context.fixture.slug}/users`, {
      email: `other@${context.fixture.slug}.example`,
      password: context.fixture.password,
      name: 'Other',
    });
    assert.equal(other.status, 201, JSON.stringify(other.body));
    const agent = await context.server.admin('POST', `/workspaces/${context.fixture.slug}/agents`, {
      name: 'Helper',
      slug: AG_UI_AGENT,
      systemPrompt: 's',
    });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    context.endedRunId = await endedRun(context);
    context.sessionId = await freshSession(context);
    // Every token the tests use, obtained up front (the flows run concurrently).
    await Promise.all(OAUTH_SCOPE_NAMES.flatMap((scope) => [only(scope), allBut(scope)]));
  });
  after(() => context.server?.close());

  it('the scope table names every route under /api/v1/workspaces/:workspaceSlug, /api/mcp/:workspaceSlug, /api/oauth/userinfo and the AG-UI endpoint, and only registered routes', () => {
    const registered = registeredRoutes(context.server.service.app).filter(
      (route) =>
        !route.startsWith('HEAD ') &&
        (route.includes(' /api/v1/workspaces/:workspaceSlug/') ||
          route.includes(' /api/mcp/:workspaceSlug') ||
          route.endsWith(' /api/oauth/userinfo') ||
          // The AG-UI route's trailing-slash twin (Fastify's, for a prefixed '/') is the same handler.
          (route.includes(' /api/ag-ui/') && !route.endsWith('/'))),
    );
    const table = [...ROWS, ...API_KEYS_ONLY].map((row) => `${row.method} ${row.pattern}`);
    assert.deepEqual(
      registered.filter((route) => !table.includes(route)),
      [],
      'registered routes missing from the table',
    );
    assert.deepEqual(
      table.filter((route) => !registered.includes(route)),
      [],
      'table rows naming no registered route',
    );
    assert.equal(new Set(table).size, table.length, 'each route has one row');
  });

  for (const row of ROWS) {
    it(`${row.method} ${row.pattern}: a token with every scope but ${row.scope} gets 403 insufficient_scope naming ${row.scope}`, async () => {
      const response = await context.server.request(row.method, concrete(row, context), {
        headers: await allBut(row.scope),
        ...(row.body !== undefined && { body: row.body }),
      });
      assert.equal(response.status, 403, JSON.stringify(response.body));
      assert.equal(response.body.error, 'insufficient_scope');
      assert.equal(response.body.required, row.scope);
      assert.equal(typeof response.body.message, 'string');
      assert.equal(
        response.headers.get('www-authenticate'),
        `Bearer error="insufficient_scope", scope="${row.scope}"`,
      );
    });

    it(`${row.method} ${row.pattern}: a token with only ${row.scope} passes the scope check`, async () => {
      const { response, expected } = await row.allowed(context, await only(row.scope));
      assert.equal(response.status, expected, JSON.stringify(response.body));
    });
  }

  for (const route of API_KEYS_ONLY) {
    it(`${route.method} ${route.pattern}: API keys only, a token with every scope gets 403 insufficient_scope naming api_key`, async () => {
      const path = route.pattern
        .replace(':workspaceSlug', context.fixture.slug)
        .replace(':webhookId', 'wh_unknown')
        .replace(':deliveryId', 'msg_unknown')
        .replace(':scheduleId', 'sch_unknown');
      const everyScope = await tokenWith(OAUTH_SCOPE_NAMES, context.fixture);
      const response = await context.server.request(route.method, path, {
        headers: everyScope,
        ...((route.method === 'POST' || route.method === 'PATCH') && { body: {} }),
      });
      assert.equal(response.status, 403, JSON.stringify(response.body));
      assert.equal(response.body.error, 'insufficient_scope');
      assert.equal(response.body.required, 'api_key');
    });
  }

  it('an API key has every scope: it passes the scope check of every route', async () => {
    for (const row of ROWS) {
      const { response, expected } = await row.allowed(context, context.key);
      assert.equal(
        response.status,
        expected,
        `${row.method} ${row.pattern}: ${JSON.stringify(response.body)}`,
      );
    }
  });
});
