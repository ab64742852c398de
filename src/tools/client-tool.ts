/** Tools only the caller can execute: the run publishes `local_tool_call` and waits for the result. */
export type ClientToolKind = 'local' | 'a2a_local' | 'mcp_local';

/** One model-facing tool of a run, as resolved from its ref. */
export interface ClientTool {
  kind: ClientToolKind;
  /** The name the model calls, exactly as the client declared it. */
  name: string;
  /** The description the model sees, hints included. */
  description: string;
  /** JSON Schema of the input: forwarded to the provider and checked on every call. */
  inputSchema: Record<string, unknown>;
  /** JSON Schema of the returned value, checked host-side when present. */
  outputSchema?: Record<string, unknown>;
  readOnly: boolean;
  retain: boolean;
  /** Kind-specific fields echoed on `local_tool_call` (`agentCard`; `mcpServer`, …). */
  callExtras: Record<string, unknown>;
}

export const EMPTY_OBJECT_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: 'object',
  properties: {},
});

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The schema when its root is an object schema, kept verbatim (nested constraints included);
 * `properties` alone implies `type: object`. Anything else is not an object schema.
 */
export function objectRootSchema(schema: unknown): Record<string, unknown> | undefined {
  if (!isJsonObject(schema)) return undefined;
  if (schema.type === 'object') return schema;
  if (schema.type === undefined && isJsonObject(schema.properties)) return { type: 'object', ...schema };
  return undefined;
}

/** An input schema as the providers need it: an object-root schema, else the empty object schema. */
export function objectInputSchema(schema: unknown): Record<string, unknown> {
  const object = objectRootSchema(schema);
  return object ? { properties: {}, ...object } : { ...EMPTY_OBJECT_SCHEMA };
}
