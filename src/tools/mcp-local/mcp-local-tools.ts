import type { McpLocalToolRef } from '../../domain/tool-ref.ts';
import type { RunTool } from '../../engine/ports.ts';
import { objectInputSchema } from '../object-schema.ts';

/**
 * `mcp_local`: an MCP server only the client can reach. Each listed tool is
 * exposed under its own name (no prefix), with its `inputSchema` forwarded
 * verbatim; an empty or missing schema means a tool without arguments.
 */
export function mcpLocalTools(ref: McpLocalToolRef): RunTool[] {
  return ref.tools.map((tool) => ({
    kind: 'mcp_local',
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: objectInputSchema(tool.inputSchema),
    // Annotations are echoed only; they do not change scheduling.
    readOnly: false,
    retain: false,
    callExtras: {
      mcpServer: ref.name,
      mcpToolName: tool.name,
      ...(ref.serverInfo !== undefined && { mcpServerInfo: ref.serverInfo }),
      ...(tool.annotations !== undefined && { annotations: tool.annotations }),
    },
  }));
}
