import { after, before, describe } from 'node:test';
import { describeEndpointAccess } from '../support/endpoint-access.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** A `tools/call` of the agent `helper`, as a client writes it (the answer streams as SSE). */
const CALL = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'helper', arguments: { message: 'hi' } },
};

describe(
  'MCP server (extensions §9): credentials, scope and rate limits as for a run start',
  { timeout: 120_000 },
  () => {
    let server: TestServer;
    before(async () => {
      // Dev mode: the offline mock model answers (`mock/echo`).
      server = await startTestServer({ dev: true });
    });
    after(() => server.close());

    describeEndpointAccess(() => server, {
      workspacePath: (workspaceSlug) => `/api/mcp/${workspaceSlug}`,
      path: (workspaceSlug) => `/api/mcp/${workspaceSlug}`,
      start: (server, path, headers) =>
        server.request('POST', path, {
          headers: { ...headers, accept: 'application/json, text/event-stream' },
          body: CALL,
        }),
    });
  },
);
