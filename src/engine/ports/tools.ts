import type { LocalToolCallData } from '../../domain/run-events.ts';
import type { ToolKind, ToolRef } from '../../domain/tool-ref.ts';

/** One model-facing tool of a run, as resolved from its ref. */
export interface RunTool {
  kind: ToolKind;
  /** The name the model calls. */
  name: string;
  /** The description the model sees, hints included. */
  description: string;
  /** JSON Schema of the input: forwarded to the provider and checked on every call. */
  inputSchema: Record<string, unknown>;
  /** JSON Schema of the returned value, checked host-side when present. */
  outputSchema?: Record<string, unknown>;
  /** May run concurrently with the other read-only calls of its turn. */
  readOnly: boolean;
  /** Its result is kept with the session and replayed on later turns. */
  retain: boolean;
  /** Kind-specific fields echoed on `local_tool_call` (`agentCard`; `mcpServer`, …). */
  callExtras: Omit<LocalToolCallData, 'toolUseId' | 'name' | 'args' | 'kind'>;
}

/** The tools of one run, by the name the model calls. */
export type RunTools = ReadonlyMap<string, RunTool>;

/** Turns a spec's tool refs into the run's tools (tools/ implements one module per kind). */
export interface ToolCatalog {
  /**
   * At run creation: throws `InvalidRequestError` when refs collide, name a workspace tool or a
   * plugin that does not exist, or a kind this server cannot run.
   */
  check(workspaceId: string, refs: readonly ToolRef[]): Promise<void>;
  /** When an execution starts: resolves every ref (an MCP server's catalog is listed now). */
  open(refs: readonly ToolRef[], scope: RunToolScope): Promise<OpenedRunTools>;
}

export interface SchemaViolation {
  path: string;
  message: string;
}

export type ValidationOutcome = { valid: true } | { valid: false; violations: SchemaViolation[] };

/** Validates values against client-supplied JSON Schemas. */
export interface SchemaValidator {
  validate(schema: Record<string, unknown>, value: unknown): ValidationOutcome;
}

/** A file a server-resolved tool returned: bytes the service stores, or a public HTTPS URL it only names. */
export type ServerToolFile = { filename: string; mimeType: string } & (
  { data: Uint8Array } | { url: string; sizeBytes?: number }
);

/** What one server-resolved call returned. */
export interface ServerToolOutcome {
  /** False: a tool error the model sees as such (an MCP `isError`, an HTTP error status, a peer error, a refused fetch). */
  ok: boolean;
  /** The whole result, as the model receives it. */
  text: string;
  files?: ServerToolFile[];
}

/** Who a server-resolved call runs for. */
export interface ServerToolCallContext {
  runId: string;
  workspaceId: string;
  /** The persisted agent the run executes; null for an ephemeral spec. */
  agentId: string | null;
  /** The model's id of the call (its `toolUseId`); the engine always gives it. */
  toolUseId?: string;
  /** Aborted on cancel or shutdown: the call stops and closes its connections. */
  signal: AbortSignal;
}

/** Executes one server-resolved tool (MCP, A2A, HTTP, plugin); failures the model should see are outcomes with `ok: false`. */
export type ServerToolHandler = (
  args: Record<string, unknown>,
  context: ServerToolCallContext,
) => Promise<ServerToolOutcome>;

/** A run's tools as opened for one execution: server connections (MCP sessions) stay open until `close`. */
export interface OpenedRunTools {
  tools: RunTools;
  /** The handler of each server-resolved tool, by the name the model calls. */
  handlers: ReadonlyMap<string, ServerToolHandler>;
  close(): Promise<void>;
}

/** Where a run's tools write their warnings: the run's logger, so each line carries the run. */
export interface RunToolLog {
  warn(fields: object, message: string): void;
}

export interface RunToolScope {
  runId: string;
  workspaceId: string;
  agentId: string | null;
  signal: AbortSignal;
  logger: RunToolLog;
}
