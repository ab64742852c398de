/** The descriptions of the MCP server's routes (`routes/mcp/`), ready for `describeRoute`. */
import { mcpJsonRpcMessageSchema, mcpJsonRpcResponseSchema } from '../schemas/responses/mcp.ts';
import type { RouteDescription } from './describe-route.ts';
import type { JsonRpcMethodBuckets } from './route-bucket.ts';

/** A tool call starts a run; a cancellation is lifecycle; the session's other messages are transport. */
const MCP_BUCKETS: JsonRpcMethodBuckets = {
  byJsonRpcMethod: { 'tools/call': 'run_start', 'notifications/cancelled': 'lifecycle' },
  otherwise: 'transport',
};

export const MCP_MESSAGE: RouteDescription = {
  operationId: 'callMcpServer',
  summary: 'Agents as an MCP server (Streamable HTTP)',
  description:
    'One JSON-RPC message per request (MCP 2025-06-18 and later): `tools/list` lists the agents the credential may run, one tool each; `tools/call` runs the agent (a one-shot run, or a message run with `sessionId`) and answers its reply, with `_meta` `agent-runs/runId` and `agent-runs/usage`. `initialize` answers an `Mcp-Session-Id`, which `notifications/cancelled` needs to find the run it cancels. Malformed messages are JSON-RPC errors in a 400 answer.',
  tags: ['mcp'],
  scopes: ['runs:write'],
  bucket: MCP_BUCKETS,
  body: mcpJsonRpcMessageSchema,
  bodyRefusals: ['payload_too_large'],
  responses: {
    200: {
      description:
        'The JSON-RPC response, as Server-Sent Events (or JSON when the client accepts only JSON).',
      contentType: ['text/event-stream', 'application/json'],
      body: mcpJsonRpcResponseSchema,
      headers: { 'Mcp-Session-Id': 'On the answer to `initialize`: send it on every later request.' },
    },
    202: { description: 'A notification was accepted.' },
    400: {
      description: 'A malformed message or an unsupported MCP-Protocol-Version (a JSON-RPC error).',
      body: mcpJsonRpcResponseSchema,
    },
  },
};

export const MCP_NO_STREAM: RouteDescription = {
  operationId: 'openMcpServerStream',
  summary: 'MCP standalone stream (not offered)',
  description:
    'The server is stateless: it sends nothing outside the answers to requests, so it offers no standalone stream and keeps no session to end. `405`, as Streamable HTTP allows.',
  tags: ['mcp'],
  scopes: ['runs:write'],
  bucket: 'transport',
  responses: { 405: { description: 'Not offered.' } },
};

export const MCP_NO_SESSION_END: RouteDescription = {
  ...MCP_NO_STREAM,
  operationId: 'endMcpServerSession',
  summary: 'MCP session end (not needed)',
};
