/** A `local` tool ref, as the spec's `tools` takes it (type aliases, so they fit the client's `ToolRef`). */
export type LocalToolRef = {
  kind: 'local';
  name: string;
  description?: string;
  /** JSON Schema of the input: an object schema with `properties`. */
  parameters?: Record<string, unknown>;
  /** JSON Schema of the returned value (an object schema). */
  outputSchema?: Record<string, unknown>;
  longRunning?: boolean;
  readOnly?: boolean;
  retain?: boolean;
};

/** One tool of an `mcp_local` ref: the MCP tool list entry, name sanitized; other fields pass through. */
export type McpLocalToolEntry = {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
} & Record<string, unknown>;

/** An `mcp_local` ref: an MCP server only this client reaches. */
export type McpLocalToolRef = {
  kind: 'mcp_local';
  /** The server label, echoed as `mcpServer` on each call. */
  name: string;
  serverInfo?: { name: string; version?: string } & Record<string, unknown>;
  tools: McpLocalToolEntry[];
};

/** An `a2a_local` ref: an A2A peer only this client reaches. */
export type A2aLocalToolRef = {
  kind: 'a2a_local';
  name: string;
  description?: string;
  agentCard: Record<string, unknown>;
};

export type ClientToolRef = LocalToolRef | McpLocalToolRef | A2aLocalToolRef;

/** The pattern every tool and server name must match. */
export const TOOL_NAME = /^[a-zA-Z0-9_]{1,64}$/;

export function assertToolName(name: string, what: string): void {
  if (!TOOL_NAME.test(name)) throw new TypeError(`${what} '${name}' must match ${TOOL_NAME.source}`);
}
