/** Shared helpers of the MCP server tests: the official SDK client over Streamable HTTP. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The MCP server URL of a workspace. */
export function mcpUrl(baseUrl: string, workspaceSlug: string): URL {
  return new URL(`/api/mcp/${workspaceSlug}`, baseUrl);
}

/** An SDK client connected to the workspace's MCP server with these headers (the credential). */
export async function connectMcp(url: URL, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'agent-runs-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

/** The text of a tool result's text content. */
export function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

export function runIdOf(result: CallToolResult): string {
  const runId = result._meta?.['agent-runs/runId'];
  if (typeof runId !== 'string') throw new Error(`no run id in ${JSON.stringify(result._meta)}`);
  return runId;
}
