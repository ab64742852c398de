import { EMPTY_OBJECT_SCHEMA } from '../object-schema.ts';
import type { ServerTool } from '../server-tool.ts';
import { modelToolName } from './tool-names.ts';

/**
 * What a run gets for an MCP server it could not open: one argument-less tool,
 * `<name>_unavailable`, that tells the model why, so it can report it rather
 * than silently missing the server's tools.
 */
export function unavailableTool(serverName: string, reason: string): ServerTool {
  const text = `The MCP server '${serverName}' could not be reached at run start (${reason}), so none of its tools are available in this run. Report this to the user.`;
  return {
    tool: {
      kind: 'mcp',
      name: modelToolName(serverName, 'unavailable'),
      description: text,
      inputSchema: { ...EMPTY_OBJECT_SCHEMA },
      readOnly: true,
      retain: false,
      callExtras: {},
    },
    handler: async () => ({ ok: false, text }),
  };
}
