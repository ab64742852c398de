/** Tool kinds the service executes itself. */
export const SERVER_TOOL_KINDS = ['svc', 'svc_plugin', 'a2a', 'mcp'] as const;
/** Tool kinds only the caller can execute: the run publishes `local_tool_call` and waits for the result. */
export const CLIENT_TOOL_KINDS = ['local', 'a2a_local', 'mcp_local'] as const;

export type ServerToolKind = (typeof SERVER_TOOL_KINDS)[number];
export type ClientToolKind = (typeof CLIENT_TOOL_KINDS)[number];
export type ToolKind = ServerToolKind | ClientToolKind;

export interface SvcToolRef {
  kind: 'svc';
  /** A workspace Tool row id. */
  id: string;
}

export interface SvcPluginToolRef {
  kind: 'svc_plugin';
  name: string;
}

export interface LocalToolRef {
  kind: 'local';
  name: string;
  description?: string;
  /** Forwarded verbatim when its root is an object schema; anything else becomes the empty object schema. */
  parameters?: unknown;
  outputSchema?: unknown;
  longRunning?: boolean;
  readOnly?: boolean;
  retain?: boolean;
}

export interface A2aToolRef {
  kind: 'a2a';
  name: string;
  description?: string;
  agentCardUrl: string;
  headers?: Record<string, string>;
  contextId?: string;
}

export interface A2aLocalToolRef {
  kind: 'a2a_local';
  name: string;
  description?: string;
  agentCard: Record<string, unknown>;
}

export interface McpToolRef {
  kind: 'mcp';
  name: string;
  url: string;
  headers?: Record<string, string>;
  toolFilter?: string[];
}

/** One tool of an `mcp_local` server's catalog; unknown fields pass through. */
export type McpLocalToolEntry = {
  name: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: unknown;
} & Record<string, unknown>;

export interface McpLocalToolRef {
  kind: 'mcp_local';
  /** The server's label (not a tool name). */
  name: string;
  serverInfo?: { name: string; version?: string } & Record<string, unknown>;
  tools: McpLocalToolEntry[];
}

/** One entry of an agent spec's `tools`, discriminated by `kind`. */
export type ToolRef =
  SvcToolRef | SvcPluginToolRef | LocalToolRef | A2aToolRef | A2aLocalToolRef | McpToolRef | McpLocalToolRef;

export function isServerToolKind(kind: ToolKind): kind is ServerToolKind {
  return (SERVER_TOOL_KINDS as readonly string[]).includes(kind);
}
