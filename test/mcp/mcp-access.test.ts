import { describeHostedEndpoint } from '../support/endpoint-access.ts';

/** A `tools/call` of the agent `helper`, as a client writes it (the answer streams as SSE). */
const CALL = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'helper', arguments: { message: 'hi' } },
};

describeHostedEndpoint('MCP server (extensions §9): credentials, scope and rate limits as for a run start', {
  workspacePath: (workspaceSlug) => `/api/mcp/${workspaceSlug}`,
  path: (workspaceSlug) => `/api/mcp/${workspaceSlug}`,
  start: (server, path, headers) =>
    server.request('POST', path, {
      headers: { ...headers, accept: 'application/json, text/event-stream' },
      body: CALL,
    }),
});
