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
  /** Throws `InvalidRequestError` when refs collide or name a kind this server cannot run. */
  resolve(refs: readonly ToolRef[]): RunTools;
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
