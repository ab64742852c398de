import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { TraceOrigin } from '../../../domain/trace-context.ts';
import type { RunCredential } from '../../../engine/lifecycle/agent-access.ts';
import type { AgentAdminStore } from '../../../engine/ports.ts';
import { agentOfTool, agentTool, runnableAgents } from './agent-tools.ts';
import { callAgentTool, type AgentToolCallDeps } from './agent-tool-call.ts';

export interface AgentServerDeps extends AgentToolCallDeps {
  agents: Pick<AgentAdminStore, 'listByWorkspace'>;
}

export interface AgentServerContext {
  credential: RunCredential;
  /** The `Mcp-Session-Id` of the client's requests (issued at `initialize`). */
  mcpSessionId: string | undefined;
  caller: TraceOrigin | undefined;
  signal: AbortSignal;
}

const SERVER_INFO = { name: 'agent-runs', version: '1.0.0' };
const INSTRUCTIONS =
  "Each tool is an agent of this workspace: call it with a message; pass sessionId (an agent session's id) to continue that conversation.";

/** The SDK's MCP server for one HTTP request: the workspace's agents as tools, for this credential. */
export function agentServer(deps: AgentServerDeps, context: AgentServerContext): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await runnableAgents(deps.agents, context.credential)).map(agentTool),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const agent = await agentOfTool(deps.agents, context.credential, request.params.name);
    if (!agent) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return callAgentTool(deps, {
      credential: context.credential,
      agent,
      arguments: request.params.arguments,
      requestId: extra.requestId,
      mcpSessionId: context.mcpSessionId,
      progressToken: request.params._meta?.progressToken,
      sendProgress: (params) => extra.sendNotification({ method: 'notifications/progress', params }),
      caller: context.caller,
      signal: AbortSignal.any([context.signal, extra.signal]),
    });
  });
  return server;
}
