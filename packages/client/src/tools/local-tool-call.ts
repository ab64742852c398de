/** The client-resolved tool kinds; a `local_tool_call` without `kind` is `local`. */
export type ClientToolKind = 'local' | 'a2a_local' | 'mcp_local';

/** One `local_tool_call` event's data, with `kind` filled in. */
export interface LocalToolCall {
  toolUseId: string;
  /** The model-facing tool name. */
  name: string;
  args: Record<string, unknown>;
  kind: ClientToolKind;
  /** `a2a_local`: the Agent Card echoed from the spec. */
  agentCard?: Record<string, unknown>;
  /** `mcp_local`: the ref's `name` (the server label). */
  mcpServer?: string;
  /** `mcp_local`: the tool name as listed in the ref. */
  mcpToolName?: string;
  mcpServerInfo?: Record<string, unknown>;
  annotations?: unknown;
  /** The event's `seq`. */
  seq: number;
}

/** The smallest view of a run event the dispatcher needs: every event of the client's stream fits it. */
export interface RunEventLike {
  seq: number;
  type: string;
  data: unknown;
}

export const TERMINAL_EVENT_TYPES: ReadonlySet<string> = new Set(['result', 'error', 'cancelled']);

/** The call an event carries, when it is a well-formed `local_tool_call` (a malformed one is not ours to answer). */
export function localToolCallOf(event: RunEventLike): LocalToolCall | undefined {
  if (event.type !== 'local_tool_call' || !isRecord(event.data)) return undefined;
  const data = event.data;
  if (typeof data.toolUseId !== 'string' || typeof data.name !== 'string') return undefined;
  const call: LocalToolCall = {
    toolUseId: data.toolUseId,
    name: data.name,
    args: isRecord(data.args) ? data.args : {},
    kind: kindOf(data.kind),
    seq: event.seq,
  };
  if (isRecord(data.agentCard)) call.agentCard = data.agentCard;
  if (typeof data.mcpServer === 'string') call.mcpServer = data.mcpServer;
  if (typeof data.mcpToolName === 'string') call.mcpToolName = data.mcpToolName;
  if (isRecord(data.mcpServerInfo)) call.mcpServerInfo = data.mcpServerInfo;
  if (data.annotations !== undefined) call.annotations = data.annotations;
  return call;
}

/** The `toolUseId` a `local_tool_result_in` event answers. */
export function answeredToolUseIdOf(event: RunEventLike): string | undefined {
  if (event.type !== 'local_tool_result_in' || !isRecord(event.data)) return undefined;
  return typeof event.data.toolUseId === 'string' ? event.data.toolUseId : undefined;
}

function kindOf(value: unknown): ClientToolKind {
  // A kind this client does not know is still routed by name, like an older client would.
  return value === 'a2a_local' || value === 'mcp_local' ? value : 'local';
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
