import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerTrace } from '../../caller-trace.ts';
import { describeRoute } from '../../openapi/describe-route.ts';
import { MCP_MESSAGE, MCP_NO_SESSION_END, MCP_NO_STREAM } from '../../openapi/mcp-route-descriptions.ts';
import { jsonRpcEndpoint } from '../../plugins/hosted-endpoint.ts';
import { JSON_RPC_BODY_CODES, requestIdOf, type JsonRpcBody } from '../../plugins/json-rpc-body.ts';
import { principalOf } from '../../principal-of.ts';
import type { AppResources } from '../../resources.ts';
import { runCredential } from '../../run-credential.ts';
import { cancelRequestedRun } from './cancellation.ts';
import { agentServer } from './agent-server.ts';
import { isServedVersionHeader, negotiableVersion, SERVED_PROTOCOL_VERSIONS } from './protocol-versions.ts';

/** A message is text of at most 200,000 characters, as on the A2A endpoint. */
export const MCP_BODY_LIMIT = 1024 * 1024;
const SESSION_HEADER = 'mcp-session-id';

/** The MCP server's path of a workspace (what a slug-mismatch hint names). */
export function mcpWorkspacePath(workspaceSlug: string): string {
  return `/api/mcp/${workspaceSlug}`;
}

type Params = { workspaceSlug: string };

/**
 * Workspace agents as an MCP server (extensions §9) under `/api/mcp/:workspaceSlug`, over Streamable
 * HTTP with the official SDK's server. The transport is stateless: each POST gets its own SDK server,
 * so any API replica answers any request. `initialize` answers a random `Mcp-Session-Id` that the
 * client sends back; it is only a name for the client's requests (stored with the runs they start),
 * so that `notifications/cancelled`, on whichever replica it lands, finds and cancels the run.
 * Credentials, scope (`runs:write`) and rate limits are those of the workspace routes.
 */
export async function mcpRoutes(app: FastifyInstance, options: { resources: AppResources }): Promise<void> {
  const { repos, engine } = options.resources;
  const { shutdown, transportLimit, callLimit } = jsonRpcEndpoint(app, {
    resources: options.resources,
    workspacePath: mcpWorkspacePath,
  });

  const notOffered = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .status(405)
      .header('allow', 'POST')
      .send(jsonRpcError(null, -32000, 'Method not allowed: this stateless MCP server answers POST only'));
  app.get('/', { ...describeRoute(MCP_NO_STREAM), onRequest: transportLimit }, notOffered);
  app.delete('/', { ...describeRoute(MCP_NO_SESSION_END), onRequest: transportLimit }, notOffered);

  app.post<{ Params: Params; Body: JsonRpcBody | undefined }>(
    '/',
    { bodyLimit: MCP_BODY_LIMIT, ...describeRoute(MCP_MESSAGE), preHandler: callLimit },
    async (request, reply) => {
      const body = request.body ?? {
        ok: false,
        code: JSON_RPC_BODY_CODES.invalidRequest,
        message: 'Invalid Request: the body must be a JSON-RPC message object',
      };
      if (!body.ok) return reply.status(400).send(jsonRpcError(null, body.code, body.message));
      const message = body.request;
      const versionHeader = request.headers['mcp-protocol-version'];
      if (message.method !== 'initialize' && !isServedVersionHeader(versionHeader)) {
        return reply
          .status(400)
          .send(
            jsonRpcError(
              requestIdOf(body),
              -32000,
              `Bad Request: unsupported MCP-Protocol-Version ${String(versionHeader)} (supported: ${SERVED_PROTOCOL_VERSIONS.join(', ')})`,
            ),
          );
      }
      const credential = runCredential(principalOf(request));
      const sessionHeader = request.headers[SESSION_HEADER];
      const mcpSessionId =
        typeof sessionHeader === 'string' && sessionHeader !== '' ? sessionHeader : undefined;

      if (message.method === 'notifications/cancelled') {
        const params = (message.params ?? {}) as { requestId?: unknown };
        await cancelRequestedRun(engine.runs, credential, mcpSessionId, params.requestId);
        return reply.status(202).send();
      }

      let issuedSessionId: string | undefined;
      if (message.method === 'initialize') {
        const params = (message.params ?? {}) as Record<string, unknown>;
        message.params = { ...params, protocolVersion: negotiableVersion(params.protocolVersion) };
        issuedSessionId = `mcps_${randomUUID().replaceAll('-', '')}`;
      }

      // Aborted when the client goes away or the service stops: a call stops following its run.
      const gone = new AbortController();
      const server = agentServer(
        {
          agents: repos.agents,
          runs: engine.runs,
          sessions: engine.sessions,
          hostedAgents: engine.hostedAgents,
        },
        {
          credential,
          mcpSessionId: issuedSessionId ?? mcpSessionId,
          caller: callerTrace(request),
          signal: AbortSignal.any([gone.signal, shutdown]),
        },
      );
      const transport = new WebStandardStreamableHTTPServerTransport({});
      await server.connect(transport);
      reply.raw.on('close', () => {
        gone.abort();
        void server.close().catch(() => undefined);
      });
      const answer = await transport.handleRequest(webRequestOf(request), { parsedBody: message });
      reply.status(answer.status);
      for (const [name, value] of answer.headers) reply.header(name, value);
      if (issuedSessionId !== undefined && answer.ok) reply.header(SESSION_HEADER, issuedSessionId);
      if (!answer.body) return reply.send();
      return reply.send(Readable.fromWeb(answer.body as NodeReadableStream<Uint8Array>));
    },
  );
}

/** The request as the SDK's web-standard transport reads it: its headers (the body is already parsed). */
function webRequestOf(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Request(`http://localhost${request.url}`, { method: 'POST', headers });
}

function jsonRpcError(id: string | number | null, code: number, message: string) {
  return { jsonrpc: '2.0' as const, id, error: { code, message } };
}
