/**
 * The access rules a protocol endpoint that serves a workspace's agents (hosted A2A, AG-UI, MCP)
 * shares with the workspace routes: the credential, the URL's workspace slug, an access token's
 * scope and the run-start rate limit. One table of refusals, one `it` a row, registered first in
 * the endpoint's suite on its server, in workspaces of their own (`access-…`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOAuthFixture, obtainTokens } from './oauth-flow.ts';
import {
  bearer,
  createWorkspaceWithKey,
  startTestServer,
  type TestResponse,
  type TestServer,
} from './test-server.ts';

export interface AccessEndpoint {
  /** The path a slug-mismatch hint names for a workspace. */
  workspacePath(workspaceSlug: string): string;
  /** Where a run of the workspace's agent `helper` starts. */
  path(workspaceSlug: string): string;
  /** A request that starts a run there (it draws on the `run_start` bucket). */
  start(server: TestServer, path: string, headers: Record<string, string>): Promise<TestResponse>;
}

const OWN = 'access-own';
const OTHER = 'access-other';
const LIMITED = 'access-limited';
const OAUTHED = 'access-oauthed';

interface Refusal {
  name: string;
  workspace: string;
  headers: 'none' | 'unknown' | 'key' | 'token without runs:write';
  status: number;
  body: Record<string, unknown>;
  message?: RegExp;
  hint?: boolean;
  wwwAuthenticate?: string;
}

const REFUSALS: readonly Refusal[] = [
  {
    name: 'a missing credential is 401 with the usual body',
    workspace: OWN,
    headers: 'none',
    status: 401,
    body: { error: 'Unauthorized' },
    message: /missing credential/,
    wwwAuthenticate: 'Bearer',
  },
  {
    name: 'an unknown credential is 401 Invalid API key',
    workspace: OWN,
    headers: 'unknown',
    status: 401,
    body: { error: 'Invalid API key' },
  },
  {
    name: "the slug of another workspace is 404 with a hint naming the credential's own",
    workspace: OTHER,
    headers: 'key',
    status: 404,
    body: { error: 'Workspace path mismatch', code: 'not_found' },
    hint: true,
  },
  {
    name: 'the slug of no workspace is 404 not_found with the same hint',
    workspace: 'access-nowhere',
    headers: 'key',
    status: 404,
    body: { error: 'not_found' },
    hint: true,
  },
  {
    name: 'an access token without runs:write is 403 insufficient_scope naming runs:write',
    workspace: OAUTHED,
    headers: 'token without runs:write',
    status: 403,
    body: { error: 'insufficient_scope', required: 'runs:write' },
    wwwAuthenticate: 'Bearer error="insufficient_scope", scope="runs:write"',
  },
];

/**
 * The suite of a hosted endpoint on a dev-mode server of its own (the offline mock model answers,
 * `mock/echo`): the access table of `endpoint`, then the file's own `tests`, given the server (it
 * starts in the suite's first `before`, so it is there from the tests' own hooks on).
 */
export function describeHostedEndpoint(
  title: string,
  endpoint: AccessEndpoint,
  tests: (serverOf: () => TestServer) => void = () => {},
): void {
  describe(title, { timeout: 120_000 }, () => {
    let server: TestServer | undefined;
    before(async () => {
      server = await startTestServer({ dev: true });
    });
    after(() => server?.close());
    const serverOf = (): TestServer => {
      assert.ok(server, 'the server starts in the first before of the suite');
      return server;
    };
    describeEndpointAccess(serverOf, endpoint);
    tests(serverOf);
  });
}

function describeEndpointAccess(serverOf: () => TestServer, endpoint: AccessEndpoint): void {
  describe('access as on every workspace route (credential, workspace, scope, rate limit)', () => {
    const headers: Record<Refusal['headers'], Record<string, string>> = {
      none: {},
      unknown: bearer(`svc_${'x'.repeat(40)}`),
      key: {},
      'token without runs:write': {},
    };
    let limited: Record<string, string>;

    before(async () => {
      const server = serverOf();
      const createHelper = async (slug: string) => {
        const created = await server.admin('POST', `/workspaces/${slug}/agents`, {
          name: 'Helper',
          systemPrompt: 's',
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
      };
      headers.key = bearer((await createWorkspaceWithKey(server, OWN)).key);
      await createWorkspaceWithKey(server, OTHER);
      limited = bearer((await createWorkspaceWithKey(server, LIMITED, { rateLimits: { runStart: 1 } })).key);
      const oauth = await createOAuthFixture(server, OAUTHED);
      for (const slug of [OWN, OTHER, LIMITED, OAUTHED]) await createHelper(slug);
      const token = await obtainTokens(server, oauth, { scope: 'runs:read sessions:write' });
      headers['token without runs:write'] = bearer(token.access_token);
    });

    for (const refusal of REFUSALS) {
      it(refusal.name, async () => {
        const answer = await endpoint.start(
          serverOf(),
          endpoint.path(refusal.workspace),
          headers[refusal.headers],
        );
        assert.equal(answer.status, refusal.status, JSON.stringify(answer.body));
        for (const [field, value] of Object.entries(refusal.body)) assert.equal(answer.body[field], value);
        if (refusal.message) assert.match(answer.body.message, refusal.message);
        if (refusal.hint) {
          const own = endpoint.workspacePath(OWN);
          assert.equal(answer.body.hint, `this credential belongs to workspace '${OWN}': use ${own}`);
        }
        if (refusal.wwwAuthenticate)
          assert.equal(answer.headers.get('www-authenticate'), refusal.wwwAuthenticate);
      });
    }

    it('a run start draws on the run_start bucket; past the limit it is 429 with Retry-After', async () => {
      const path = endpoint.path(LIMITED);
      const first = await endpoint.start(serverOf(), path, limited);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.headers.get('x-ratelimit-bucket'), 'run_start');
      assert.equal(first.headers.get('x-ratelimit-remaining'), '0');
      const refused = await endpoint.start(serverOf(), path, limited);
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error, 'rate_limit_exceeded');
      assert.equal(refused.headers.get('x-ratelimit-bucket'), 'run_start');
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    });
  });
}
