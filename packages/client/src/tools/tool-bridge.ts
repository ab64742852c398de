import type { LocalToolCall } from './local-tool-call.ts';
import type { ToolAnswer } from './tool-answer.ts';
import type { A2aLocalToolRef, McpLocalToolRef } from './tool-refs.ts';

/** What a handler or bridge gets with each call. */
export interface LocalToolContext {
  toolUseId: string;
  runId: string;
  /** Aborted when the run ends, the call is answered by someone else, or the dispatcher is stopped. */
  signal: AbortSignal;
  /** The whole `local_tool_call` as received. */
  call: LocalToolCall;
}

/**
 * Something that serves the calls of one `mcp_local` or `a2a_local` ref: the MCP and A2A bridges
 * implement it, and so can any other source of client-side tools of those kinds.
 */
export interface ToolBridge {
  readonly kind: 'mcp_local' | 'a2a_local';
  /** The label calls are routed by: the `mcpServer` for MCP, the tool name for A2A. */
  readonly name: string;
  /** The ref to declare in the spec's `tools`. */
  toolRef(): McpLocalToolRef | A2aLocalToolRef;
  /** Whether this bridge serves a call its label did not route (an older server, a renamed ref). */
  serves(call: LocalToolCall): boolean;
  /** Executes the call; a failure of the tool is an `{ error }` answer, not a rejection. */
  call(call: LocalToolCall, context: LocalToolContext): Promise<ToolAnswer>;
  close(): Promise<void>;
}
